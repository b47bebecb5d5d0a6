// The machinery JW's forcing algorithms share (sec. 5.1, Fig. 6-7): SATF until "the
// oldest is too old", then force the N oldest requests (SATFUF(N), SATFDF(N, D),
// SATFGDF(N, D)), slotting other requests in front of a forced one only when that
// does not make it late.
//
// Choices this implementation makes where JW leave them open (documented, not tuned):
//  - "too old": the oldest request has waited longer than `age` ms (JW give no value;
//    default 500 ms, about half JW's 1 s p95 scale of sec. 6.1).
//  - the N forced requests are the N oldest at the moment the trigger fires; they are
//    served one at a time, the next target being the forced request the head reaches
//    first (greedy among them); a new round starts only when all N are served.
//  - "without delaying": a request r fits before target z when, served first, r's
//    completion plus the access from r's end state to z still lets z's transfer start
//    no later than the time allowed (`kFitSlackMs` absorbs rounding only).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/registry.hpp"
#include "schedulers/rotational/access_index.hpp"
#include "schedulers/rotational/param_decl.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched::rotational {

inline constexpr Millis kFitSlackMs = 1e-6;

class ForcingScheduler : public Scheduler {
 public:
  // Reads n and age from `p`, declared by forcing_params().
  ForcingScheduler(const DeviceModel& model, std::string spec, const Params& p);

  std::string spec() const override { return spec_; }
  // SATF until a forcing round is under way; then forced_choice().
  std::optional<Request> pick(Millis now, const HeadState& head) final;
  void add(const Request& r) override;
  bool remove(std::uint64_t id) override;
  bool relocate(const Request& r) override { return index_.relocate(r); }
  std::size_t size() const override { return index_.size(); }
  std::vector<Request> drain() override;

  // Ids forced and not yet served (for tests and logs).
  const std::vector<std::uint64_t>& forced() const { return forced_; }

 protected:
  // The id to serve next while a forcing round is under way (the queue is not empty):
  // where the algorithms differ.
  virtual std::uint64_t forced_choice(Millis now, const HeadState& head) = 0;
  // Starts a forcing round if none is under way and the oldest request has waited
  // longer than age_ms at `now`. Returns true while a round is under way.
  bool update_forcing(Millis now);
  // The forced request with the smallest access time from `head` (ties: arrival, id).
  const Request* nearest_forced(const HeadState& head, Millis* positioning) const;
  // True when serving `r` from `head` still lets `z`'s transfer start by `latest`.
  bool fits_before(const HeadState& head, const Request& r, const Request& z, Millis latest) const;
  // Plain SATF over everything held.
  const Request* satf_choice(const HeadState& head, Millis now);
  // Removes a chosen request from every structure and returns it.
  std::optional<Request> take(std::uint64_t id);
  // Called when a request leaves (picked or removed): derived state to clear.
  virtual void forget(std::uint64_t /*id*/) {}

  const DeviceModel& model_;
  std::string spec_;
  Millis age_ms_;
  std::size_t n_;
  AccessIndex index_;
  std::set<std::pair<Millis, std::uint64_t>> by_age_;
  std::vector<std::uint64_t> forced_;
};

// SATFDF and SATFGDF (JW sec. 5.1, Fig. 7): when a forced request z becomes the target,
// its deadline is fixed at t + T(h->z) + D rotations, and it stays the target until it
// leaves; the algorithms differ only in what they serve before it.
class DelayedForcingScheduler : public ForcingScheduler {
 public:
  // Reads n, age and d from `p`, declared by delayed_forcing_params().
  DelayedForcingScheduler(const DeviceModel& model, std::string spec, const Params& p);

 protected:
  // The current target: the forced request the head reaches first (deadline set from
  // `head`) when there is none yet. Call only while a forcing round is under way.
  const Request& target(const HeadState& head);
  Millis deadline() const { return deadline_; }
  void forget(std::uint64_t id) override;

 private:
  Millis slack_ms_;
  std::optional<std::uint64_t> target_;
  Millis deadline_ = 0.0;
};

// Parameters every forcing algorithm declares: n, age.
std::vector<ParamSpec> forcing_params();
// forcing_params() plus d, the rotations of slack (SATFDF, SATFGDF).
std::vector<ParamSpec> delayed_forcing_params();

}  // namespace disksched::rotational
