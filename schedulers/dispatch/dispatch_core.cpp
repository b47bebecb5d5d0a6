#include "schedulers/dispatch/dispatch_core.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "schedulers/registry.hpp"

namespace disksched {
namespace {

// What a scheduler that never reads the head state is given instead of a prediction.
const HeadState kUnusedHead{};

}  // namespace

DispatchCore::DispatchCore(std::unique_ptr<Scheduler> scheduler, const DeviceModel& model,
                           HeadSource& head, unsigned depth)
    : model_(model), head_(head), depth_(depth), queue_(std::move(scheduler), model) {
  if (depth_ == 0) throw std::invalid_argument("depth must be at least 1");
  spec_ = queue_.scheduler().spec();
  if (model_.rotational()) sector_ms_ = model_.sector_time_ms();
  update_rank_hits();
}

void DispatchCore::update_rank_hits() {
  rank_hits_ = head_.knows_hits() && queue_.scheduler().needs_rotation();
  uses_head_ = queue_.scheduler().uses_head();
}

std::optional<Request> DispatchCore::take_hit(Millis now) {
  for (auto it = queued_reads_.begin(); it != queued_reads_.end();) {
    if (waiting_reads_.count(*it) == 0) {
      it = queued_reads_.erase(it);  // dispatched (or gone) since
      continue;
    }
    const RequestRecord& rec = records_.at(*it);
    if (head_.hits(now, rec.offset, rec.length))
      if (auto r = queue_.take(*it)) {
        queued_reads_.erase(it);
        return r;
      }
    ++it;
  }
  return std::nullopt;
}

// Inlined into pump(), its one caller.
[[gnu::always_inline]] inline std::optional<Request> DispatchCore::choose(Millis now) {
  // Returned straight into the caller's optional: no empty one to clear and refill.
  if (rank_hits_)
    if (auto hit = take_hit(now)) return hit;
  if (!uses_head_) return queue_.pick(now, kUnusedHead);
  return queue_.pick(now, head_.predict(now));
}

std::uint64_t DispatchCore::admit(const RequestRecord& arrival, Millis now) {
  return enqueue(records_.add(records_.end(), arrival), now);
}

std::uint64_t DispatchCore::admit_held(RequestRecord& rec, Millis now) {
  return enqueue(records_.hold(records_.end(), rec), now);
}

std::uint64_t DispatchCore::enqueue(RequestRecord& rec, Millis now) {
  const std::uint64_t id = rec.seq;
  rec.arrival_ms = now;
  try {
    queue_.push(Request::arrived(id, now, rec.op, rec.offset, rec.length, rec.cls, rec.limit_ms,
                                 rec.flags),
                head_.learnt_tracks());
  } catch (...) {
    records_.drop_newest();
    throw;
  }
  if (rank_hits_ && rec.op == Op::Read) {
    queued_reads_.push_back(id);
    waiting_reads_.insert(id);
  }
  ++stats_.arrived;
  return id;
}

void DispatchCore::pump(Millis now, std::vector<std::uint64_t>& dispatched) {
  while (queue_.in_flight() < depth_) {
    const std::size_t choices = queue_.eligible();
    if (choices == 0) return;
    std::optional<Request> r = choose(now);
    if (!r) return;
    RequestRecord& rec = records_.at(r->id);
    if (rank_hits_) waiting_reads_.erase(r->id);
    rec.dispatch_ms = now;
    rec.queue_len = static_cast<std::uint32_t>(choices);
    rec.travel = r->travel;
    rec.prediction = head_.dispatched(r->id, now, r->op, r->offset, r->length,
                                      {r->travel.begin(), r->travel.end()});
    ++stats_.dispatched;
    stats_.sum_queue_len += static_cast<double>(choices);
    dispatched.push_back(r->id);
  }
}

const RequestRecord& DispatchCore::retire(std::uint64_t id, Millis now, bool ok) {
  if (!records_.holds(id))
    throw std::invalid_argument("complete: unknown request " + std::to_string(id));
  const Prediction& p = head_.completed(id, now, ok);
  // Requests queued on a track whose angle was just learnt rank by the new angle.
  if (const TrackAngles* learnt = head_.learnt_tracks())
    for (const TurnedTrack& t : head_.turned()) queue_.relocate_track(t.cylinder, t.head, *learnt);
  queue_.complete(id, now);
  RequestRecord& rec = records_.at(id);
  rec.completion_ms = now;
  rec.ok = ok;
  ++stats_.completed;
  if (!ok) ++stats_.failed;
  const Millis response = now - rec.arrival_ms;
  stats_.sum_response_ms += response;
  stats_.max_response_ms = std::max(stats_.max_response_ms, response);
  stats_.sum_service_ms += now - rec.dispatch_ms;
  if (ok && sector_ms_ > 0) {
    ++stats_.predictions_checked;
    if (std::abs(p.observed_service_ms() - (now - rec.dispatch_ms)) <= sector_ms_)
      ++stats_.predictions_within;
  }
  records_.release(id);
  return rec;
}

std::string DispatchCore::switch_scheduler(std::string_view spec) {
  auto s = make_scheduler(spec, model_);
  spec_ = s->spec();
  queue_.set_scheduler(std::move(s), head_.learnt_tracks());
  update_rank_hits();
  ++stats_.switches;
  return spec_;
}

}  // namespace disksched
