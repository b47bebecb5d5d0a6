// The request queue in front of a scheduler: it holds every request that has arrived
// and not completed, enforces the overlap rule, and offers the scheduler only eligible
// requests. The simulator and the daemon both use it, so both keep the same ordering
// rule: a request that overlaps an earlier, unfinished request (queued or at the
// device) waits until that one completes; reordering never changes what a read returns.
// Flushes, which have no extent, are not ordered here: the daemon handles their
// semantics (a flush covers writes acknowledged before it arrived). Two reads never
// conflict: only an overlap where at least one side modifies data orders them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/rotation_state.hpp"
#include "schedulers/request.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched {

class RequestQueue {
 public:
  RequestQueue(std::unique_ptr<Scheduler> scheduler, const DeviceModel& model);

  // A new request. Computes its Location from the model (with the track angles learnt
  // so far, when given) when the scheduler uses locations; hands it to the scheduler at once when it overlaps nothing
  // unfinished, else holds it back. Ids must increase
  // from push to push (the dispatch core numbers requests in arrival order), so the
  // queue finds a request by id without a hash. Throws std::invalid_argument for an id
  // not above the last one, ModelError for a request beyond the device (the queue is
  // then untouched).
  // Taken by reference: copied once, into its place in the queue (a Request is large).
  void push(const Request& r, const TrackAngles* learnt = nullptr);

  // Track (cylinder, head)'s angle was learnt (it is in `learnt`): finds the Location of
  // every unfinished request starting on it again, and tells the scheduler of those it
  // holds. Returns how many moved.
  std::size_t relocate_track(std::int64_t cylinder, std::int32_t head, const TrackAngles& learnt);

  // The scheduler's choice among eligible requests; it is then "at the device"
  // (unfinished) until complete(id).
  // Inline: the dispatch core's every pick.
  std::optional<Request> pick(Millis now, const HeadState& head) {
    auto r = scheduler_->pick(now, head);
    if (!r) return r;
    find(r->id)->at_device = true;
    ++in_flight_;
    return r;
  }

  // Takes eligible request `id` from the scheduler and puts it at the device, as if the
  // scheduler had picked it (the dispatch core's hit check). Nothing when it is not
  // eligible.
  std::optional<Request> take(std::uint64_t id);

  // The request with this id finished at the device; requests waiting on it become
  // eligible if nothing else blocks them.
  void complete(std::uint64_t id, Millis now);

  // Withdraw a queued (not dispatched) request. False when not queued.
  bool cancel(std::uint64_t id);

  // Swap the algorithm; every eligible request moves to the new scheduler. Requests
  // queued without a Location (under a scheduler that uses none) are located first,
  // with `learnt` as in push(). The new scheduler is told of each request at the device.
  void set_scheduler(std::unique_ptr<Scheduler> s, const TrackAngles* learnt = nullptr);
  const Scheduler& scheduler() const { return *scheduler_; }

  // Inline: the dispatch core asks on every pass.
  std::size_t queued() const { return unfinished_ - in_flight_; }  // eligible or blocked
  std::size_t eligible() const { return scheduler_->size(); }      // held by the scheduler
  std::size_t in_flight() const { return in_flight_; }             // dispatched, not completed
  bool empty() const { return queued() == 0 && in_flight() == 0; }

 private:
  struct Unfinished {
    Request req;
    bool live = false;
    bool at_device = false;
    bool blocked = false;
  };
  Location locate(const Request& r, const TrackAngles* learnt) const;
  Unfinished* find(std::uint64_t id) {
    if (!any_ || id < oldest_ || id >= end_) return nullptr;
    Unfinished& u = ring_[id & (ring_.size() - 1)];
    return u.live ? &u : nullptr;
  }
  Unfinished& add(std::uint64_t id);
  void grow(std::uint64_t id);
  void remove(std::uint64_t id);
  // True when an earlier unfinished request (id < id_limit) conflicts with `r`.
  bool conflicts_before(const Request& r, std::uint64_t id_limit) const;
  // Calls f(unfinished) for every unfinished request with an extent that may overlap
  // [offset, offset + length): those starting within the longest extent before it.
  // O(log n + what lies in that window).
  template <typename F>
  void for_each_near(std::uint64_t offset, std::uint64_t length, F&& f) const;
  void index(const Unfinished& u);
  void unindex(const Unfinished& u);
  // The overlap window is kept only while something modifies (or waits blocked): two
  // reads never conflict, so a read-only queue pays nothing for it. Built from the
  // unfinished requests when a write (trim, zero) arrives, dropped when none is left.
  void build_overlap_index();
  void drop_overlap_index();
  // After `gone` (completed or cancelled) left: hand the scheduler, in arrival order,
  // the blocked requests it may have been holding back that nothing else blocks.
  void release_after(const Request& gone);

  std::unique_ptr<Scheduler> scheduler_;
  const DeviceModel& model_;
  std::uint64_t capacity_;  // the model's (immutable): a virtual call the fewer per push
  bool located_ = true;  // unfinished requests carry their Location (scheduler_ uses them)
  // Unfinished requests (held, blocked or at the device) by id, in a ring that grows
  // when the span from the oldest unfinished id to the newest outgrows it. Flat: no
  // allocation per request in the steady state.
  std::vector<Unfinished> ring_;
  std::uint64_t oldest_ = 0;  // no unfinished request has a lower id
  std::uint64_t end_ = 0;     // one past the newest id
  bool any_ = false;          // a request was pushed (end_ is meaningful)
  std::size_t unfinished_ = 0;
  // Unfinished requests with an extent, sorted by (offset, id), and the multiset of
  // their lengths as (length, count) (few distinct values): the overlap window.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> by_offset_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> lengths_;
  bool by_offset_live_ = false;  // by_offset_ and lengths_ hold every unfinished extent
  std::size_t modifying_ = 0;  // unfinished writes, trims and zeroes: reads only conflict with these
  std::size_t blocked_count_ = 0;
  std::size_t in_flight_ = 0;
};

}  // namespace disksched
