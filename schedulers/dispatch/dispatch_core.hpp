// The one dispatch core: what the simulator, the filter and (through the filter) the
// emulator share to decide what the device does next. It holds the request queue (the
// overlap rule), the scheduler, a head source and the record of every unfinished
// request, and keeps at most `depth` requests at the device: each time the device has
// room the scheduler picks, given the time and where the head source says the head will
// be. Free of nbdkit, threads and clocks: every call passes the time (model
// milliseconds), so it runs in virtual time as it runs live.
//
// The simulator drives it from its event loop with the device itself as head source
// (emulator/device/); the filter drives it from nbdkit's threads with the live head
// tracker (predictor/head_tracker.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/head_source.hpp"
#include "schedulers/dispatch/record_ring.hpp"
#include "schedulers/dispatch/request_record.hpp"
#include "schedulers/queue.hpp"
#include "schedulers/request.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched {

// Counters since start (model milliseconds).
struct DispatchStats {
  std::uint64_t arrived = 0;
  std::uint64_t dispatched = 0;
  std::uint64_t completed = 0;   // including failed
  std::uint64_t failed = 0;
  std::uint64_t switches = 0;    // scheduler changes
  double sum_queue_len = 0;      // over dispatches
  double sum_response_ms = 0;    // arrival -> completion, over completions
  double sum_service_ms = 0;     // dispatch -> completion
  double max_response_ms = 0;
  std::uint64_t predictions_checked = 0;  // completions of a rotational model
  std::uint64_t predictions_within = 0;   // ... predicted within one sector time
};

class DispatchCore {
 public:
  // `model` and `head` must outlive the core; the scheduler must have been built for
  // `model`. Throws std::invalid_argument when depth is 0.
  DispatchCore(std::unique_ptr<Scheduler> scheduler, const DeviceModel& model, HeadSource& head,
               unsigned depth);

  // A request arrives at `now`: its record as RequestRecord::arriving made it. The core
  // gives it the next id (arrival order from 0) and returns it, queues it, and
  // dispatches what the device has room for: their ids are appended to `dispatched`, in
  // dispatch order, each with its record filled (dispatch time, queue length, travel,
  // prediction). Throws ModelError when the request lies beyond the device: then
  // nothing is queued and no id is used. arrive() keeps a copy of the record in the
  // core; arrive_held() fills the caller's `rec` in place, which the caller keeps until
  // the request has completed (the filter's worker, whose record goes on to the log).
  std::uint64_t arrive(const RequestRecord& arrival, Millis now,
                       std::vector<std::uint64_t>& dispatched) {
    const std::uint64_t id = admit(arrival, now);
    pump(now, dispatched);
    return id;
  }
  std::uint64_t arrive_held(RequestRecord& rec, Millis now,
                            std::vector<std::uint64_t>& dispatched) {
    const std::uint64_t id = admit_held(rec, now);
    pump(now, dispatched);
    return id;
  }

  // Request `id` completed at the device at `now` (`ok` false: it failed). Returns its
  // record, readable until the next arrive(). Throws std::invalid_argument for an id
  // that is not at the device.
  const RequestRecord& complete(std::uint64_t id, Millis now, bool ok,
                                std::vector<std::uint64_t>& dispatched) {
    const RequestRecord& rec = retire(id, now, ok);
    pump(now, dispatched);
    return rec;
  }

  // The same in two steps, for a caller that handles every event of an instant before
  // the scheduler chooses (the simulator: a burst arriving at once, or a completion and
  // the request it triggers, are all queued when it picks): admit() and retire() only
  // record, pump() dispatches.
  std::uint64_t admit(const RequestRecord& arrival, Millis now);
  std::uint64_t admit_held(RequestRecord& rec, Millis now);  // rec: the caller's or next_record()
  const RequestRecord& retire(std::uint64_t id, Millis now, bool ok);
  void pump(Millis now, std::vector<std::uint64_t>& dispatched);

  // The id the next arrival will get.
  std::uint64_t next_id() const { return records_.end(); }
  // A cleared record in the core's own storage for the next arrival to be built in
  // (RequestRecord::arrive_as), then admit_held() (the simulator: no copy of it).
  RequestRecord& next_record() { return records_.next(); }

  // The record of an unfinished request (or of the last completed one, until the next
  // arrive()).
  RequestRecord& record(std::uint64_t id) { return records_.at(id); }
  const RequestRecord& record(std::uint64_t id) const { return records_.at(id); }

  // Swaps the algorithm; queued requests move to the new one. Throws SpecError (then
  // nothing changes). Returns the new canonical spec.
  std::string switch_scheduler(std::string_view spec);
  const std::string& scheduler_spec() const { return spec_; }

  const DeviceModel& model() const { return model_; }
  const HeadSource& head() const { return head_; }
  unsigned depth() const { return depth_; }
  std::size_t queued() const { return queue_.queued(); }
  std::size_t eligible() const { return queue_.eligible(); }
  std::size_t in_flight() const { return queue_.in_flight(); }
  const DispatchStats& stats() const { return stats_; }
  // The scheduler's own counters (Scheduler::counters).
  std::vector<std::pair<std::string, double>> scheduler_counters() const {
    return queue_.scheduler().counters();
  }

 private:
  const DeviceModel& model_;
  HeadSource& head_;
  unsigned depth_;
  RequestQueue queue_;
  RecordRing records_;
  std::string spec_;
  DispatchStats stats_;
  Millis sector_ms_ = 0.0;  // > 0: predictions are checked to within one sector
  // A rotation-aware scheduler over a head source that knows the drive's buffer: a read
  // the buffer holds whole goes first, before the scheduler's search (its positioning
  // bound, overhead + seek + rotational wait, cannot see a hit). The queued reads are
  // kept, oldest first, to look for one.
  bool rank_hits_ = false;
  std::deque<std::uint64_t> queued_reads_;
  std::unordered_set<std::uint64_t> waiting_reads_;  // of those, not yet dispatched
  bool uses_head_ = true;  // the scheduler reads the head state: predict() for each pick
  // Sets rank_hits_ and uses_head_ for the scheduler in place.
  void update_rank_hits();
  std::optional<Request> take_hit(Millis now);
  // What goes to the device next: a whole hit (rank_hits_), else the scheduler's pick.
  std::optional<Request> choose(Millis now);
  // Queues the request of the record just placed in the ring (the one place a record
  // becomes the queue's Request, its seq the queue's id).
  std::uint64_t enqueue(RequestRecord& rec, Millis now);
};

}  // namespace disksched
