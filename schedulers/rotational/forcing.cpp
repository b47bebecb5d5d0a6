#include "schedulers/rotational/forcing.hpp"

#include <algorithm>

#include "schedulers/rotational/ranking.hpp"

namespace disksched::rotational {

ForcingScheduler::ForcingScheduler(const DeviceModel& model, std::string spec, const Params& p)
    : model_(model), spec_(std::move(spec)), age_ms_(p.number("age")),
      n_(static_cast<std::size_t>(p.number("n"))), index_(model, false) {}

std::optional<Request> ForcingScheduler::pick(Millis now, const HeadState& head) {
  if (index_.empty()) return std::nullopt;
  if (!update_forcing(now)) return take(satf_choice(head, now)->id);
  return take(forced_choice(now, head));
}

void ForcingScheduler::add(const Request& r) {
  index_.insert(r);
  by_age_.emplace(r.arrival_ms, r.id);
}

bool ForcingScheduler::remove(std::uint64_t id) { return take(id).has_value(); }

std::optional<Request> ForcingScheduler::take(std::uint64_t id) {
  auto r = index_.erase(id);
  if (!r) return r;
  by_age_.erase({r->arrival_ms, r->id});
  forced_.erase(std::remove(forced_.begin(), forced_.end(), id), forced_.end());
  forget(id);
  return r;
}

std::vector<Request> ForcingScheduler::drain() {
  for (const auto& [arrival, id] : by_age_) forget(id);
  by_age_.clear();
  forced_.clear();
  return index_.drain();
}

bool ForcingScheduler::update_forcing(Millis now) {
  if (forced_.empty() && !by_age_.empty() && now - by_age_.begin()->first > age_ms_) {
    for (auto it = by_age_.begin(); it != by_age_.end() && forced_.size() < n_; ++it)
      forced_.push_back(it->second);
  }
  return !forced_.empty();
}

const Request* ForcingScheduler::nearest_forced(const HeadState& head, Millis* positioning) const {
  const Request* best = nullptr;
  Rank best_rank;
  for (std::uint64_t id : forced_) {
    const Request* r = index_.find(id);
    const Millis pos = model_.positioning_ms(head, r->loc);
    const Rank rank = Rank::of(pos, *r);
    if (before(rank, best_rank)) {
      best_rank = rank;
      best = r;
      *positioning = pos;
    }
  }
  return best;
}

bool ForcingScheduler::fits_before(const HeadState& head, const Request& r, const Request& z,
                                   Millis latest) const {
  const Cost c = model_.service(head, r.op, r.offset, r.length);
  return c.end.time_ms + model_.positioning_ms(c.end, z.loc) <= latest + kFitSlackMs;
}

const Request* ForcingScheduler::satf_choice(const HeadState& head, Millis now) {
  AccessIndex::Query q;
  q.head = head;
  q.now = now;
  return index_.best(q).req;
}

DelayedForcingScheduler::DelayedForcingScheduler(const DeviceModel& model, std::string spec,
                                                 const Params& p)
    : ForcingScheduler(model, std::move(spec), p),
      slack_ms_(p.number("d") * model.rotation_ms()) {}

const Request& DelayedForcingScheduler::target(const HeadState& head) {
  if (!target_) {
    Millis tz = 0.0;
    target_ = nearest_forced(head, &tz)->id;
    deadline_ = head.time_ms + tz + slack_ms_;
  }
  return *index_.find(*target_);
}

void DelayedForcingScheduler::forget(std::uint64_t id) {
  if (target_ && *target_ == id) target_.reset();
}

std::vector<ParamSpec> forcing_params() {
  return {
      count_param("n", "requests", "how many of the oldest requests each round forces (JW's N)", 1,
                1, 1e6),
      number_param("age", "ms",
                "the oldest request is 'too old' once it has waited longer than this; then "
                "a forcing round starts",
                500, 0, 3.6e6),
  };
}

std::vector<ParamSpec> delayed_forcing_params() {
  auto ps = forcing_params();
  ps.push_back(number_param("d", "rotations",
                         "slack before a forced request must start, in whole rotations (JW: "
                         "\"typically 4 or 5\")",
                         5, 0, 100));
  return ps;
}

}  // namespace disksched::rotational
