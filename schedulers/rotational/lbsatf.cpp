// LBSATF: Leaky Batched Shortest Access Time First (JW sec. 5.2).
//
// A batch (everything held when it is taken) is scheduled greedily by access time
// from the head state, and the projected end of that schedule becomes the batch's
// deadline. A request arriving during the batch joins it "if a schedule can be found
// that will complete it as well as all the existing requests before the existing
// deadline"; otherwise it is put aside until the next batch. The schedule we look for
// is the current one with the newcomer slotted into a gap: before planned request i
// when, served there, it still lets request i start no later than planned (the
// Fig. 6 no-delay test), or at the end when it completes by the deadline; the first
// gap that works is taken, and the rest of the plan is re-timed and checked against
// the deadline. Each newcomer is tried once, at the first pick after it arrives.
// The plan is served in order; if the head state at a pick differs from the plan's
// prediction (live devices), the plan is re-timed from the actual state.
#include <algorithm>
#include <cmath>
#include <memory>

#include "schedulers/rotational/access_index.hpp"
#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/batching.hpp"
#include "schedulers/rotational/ranking.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

constexpr Millis kTolMs = 1e-6;  // rounding allowance on predicted times

class Lbsatf final : public Scheduler {
 public:
  Lbsatf(const DeviceModel& model, std::string spec, const Params& p)
      : model_(model),
        spec_(std::move(spec)),
        trigger_(BatchTrigger::from(p)),
        pool_(model, /*track_age=*/!trigger_.continuous) {}

  std::string spec() const override { return spec_; }
  void add(const Request& r) override { pending_.push_back(r); }
  bool remove(std::uint64_t id) override {
    for (std::size_t i = 0; i < plan_.size(); ++i) {
      if (plan_[i].req.id != id) continue;
      const HeadState from = plan_[i].from;
      plan_.erase(plan_.begin() + static_cast<std::ptrdiff_t>(i));
      retime(i, from);
      return true;
    }
    auto it = std::find_if(pending_.begin(), pending_.end(),
                           [&](const Request& r) { return r.id == id; });
    if (it != pending_.end()) {
      pending_.erase(it);
      return true;
    }
    return pool_.erase(id).has_value();
  }
  // In place: the request keeps its slot in the batch (the plan's times come from
  // service(), which finds the location itself).
  bool relocate(const Request& r) override {
    for (Step& s : plan_)
      if (s.req.id == r.id) {
        s.req.loc = r.loc;
        return true;
      }
    for (Request& p : pending_)
      if (p.id == r.id) {
        p.loc = r.loc;
        return true;
      }
    return pool_.relocate(r);
  }
  std::size_t size() const override { return plan_.size() + pending_.size() + pool_.size(); }
  std::vector<Request> drain() override {
    std::vector<Request> out;
    for (auto& s : plan_) out.push_back(s.req);
    for (auto& r : pending_) out.push_back(r);
    for (auto& r : pool_.drain()) out.push_back(r);
    plan_.clear();
    pending_.clear();
    return out;
  }

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    if (plan_.empty()) {
      for (const auto& r : pending_) pool_.insert(r);
      pending_.clear();
      if (pool_.empty()) return std::nullopt;
      if (!trigger_.fires(now, pool_)) {
        AccessIndex::Query q;
        q.head = head;
        q.now = now;
        return pool_.erase(pool_.best(q).req->id);
      }
      take_batch(head, now);
    } else {
      if (!same_state(head, plan_.front().from)) retime(0, head);
      std::sort(pending_.begin(), pending_.end(), older);
      for (const auto& r : pending_)
        if (!admit(r, head)) pool_.insert(r);
      pending_.clear();
    }
    Request r = plan_.front().req;
    plan_.erase(plan_.begin());
    return r;
  }

  Millis deadline() const { return deadline_; }

 private:
  struct Step {
    Request req;
    HeadState from;   // predicted state when it is dispatched
    Millis start_ms;  // predicted start of its transfer
    HeadState end;    // predicted state when it completes
  };

  static bool same_state(const HeadState& a, const HeadState& b) {
    return a.cylinder == b.cylinder && a.head == b.head && std::fabs(a.time_ms - b.time_ms) <= kTolMs;
  }

  Step step(const Request& r, const HeadState& from) const {
    const Cost c = model_.service(from, r.op, r.offset, r.length);
    return Step{r, from, from.time_ms + c.positioning_ms(), c.end};
  }

  // The batch: everything in the pool, ordered greedily by access time.
  void take_batch(const HeadState& head, Millis now) {
    AccessIndex batch(model_, false);
    for (const auto& r : pool_.drain()) batch.insert(r);
    HeadState state = head;
    while (!batch.empty()) {
      AccessIndex::Query q;
      q.head = state;
      q.now = now;
      Request r = *batch.erase(batch.best(q).req->id);
      plan_.push_back(step(r, state));
      state = plan_.back().end;
    }
    deadline_ = state.time_ms;
  }

  // Re-predicts plan_[i..] served in order from `from`; returns the predicted end.
  Millis retime(std::size_t i, HeadState from) {
    for (; i < plan_.size(); ++i) {
      plan_[i] = step(plan_[i].req, from);
      from = plan_[i].end;
    }
    return from.time_ms;
  }

  // Slots `r` into the first gap of the plan where it delays nothing (see the top).
  bool admit(const Request& r, const HeadState& head) {
    for (std::size_t i = 0; i <= plan_.size(); ++i) {
      const HeadState from = i == 0 ? head : plan_[i - 1].end;
      const Step s = step(r, from);
      if (i < plan_.size()) {
        if (s.end.time_ms + model_.positioning_ms(s.end, plan_[i].req.loc) >
            plan_[i].start_ms + kTolMs)
          continue;
      } else if (s.end.time_ms > deadline_ + kTolMs) {
        continue;
      }
      plan_.insert(plan_.begin() + static_cast<std::ptrdiff_t>(i), s);
      if (retime(i + 1, s.end) <= deadline_ + kTolMs) return true;
      plan_.erase(plan_.begin() + static_cast<std::ptrdiff_t>(i));
      retime(i, from);
    }
    return false;
  }

  const DeviceModel& model_;
  std::string spec_;
  BatchTrigger trigger_;
  std::vector<Step> plan_;         // the batch, in service order
  Millis deadline_ = 0.0;          // projected end of the batch as taken
  std::vector<Request> pending_;   // arrived since the last pick, not yet tried
  AccessIndex pool_;               // put aside until the next batch
};

}  // namespace

AlgorithmInfo lbsatf_algorithm() {
  return {
      .name = "lbsatf",
      .description = "leaky batched SATF: newcomers join the batch only if it still ends by its "
                     "projected deadline",
      .source = "JW sec. 5.2",
      .needs_rotation = true,
      .params = batch_params(),
      .factory = spec_factory<Lbsatf>(lbsatf_algorithm),
  };
}

}  // namespace disksched::rotational
