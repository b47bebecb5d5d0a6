// The discrete-event simulator: an event loop in virtual time around the dispatch core
// the filter runs (schedulers/dispatch/), the one emulated device (emulator/device/),
// and arrivals through emulator/sim/arrivals.hpp.
//
// The device serves the requests dispatched to it one after another in dispatch
// order: with depth 1 (the default, as in JW sec. 6) the scheduler chooses each next
// request when the previous one completes, from the head state at that completion;
// with depth N up to N requests are at the device and the scheduler chooses from the
// predicted head state at the end of the last dispatched one (a device with a FIFO
// command queue, as the daemon sees one).
//
// With a drive queue (SimConfig::drive_queue; emulator/device/drive_queue.hpp) the
// device holds up to its own depth of the dispatched requests and its firmware policy
// picks among them when the mechanism is free; the scheduler above then sees the head
// only after the command being served, as a host would.
//
// JW's protocol (sec. 6): the first `warmup` arrivals warm the queue up, the next
// `measured` are measured, and arrivals continue ("keep-warm") until every measured
// request has completed. Everything is decided by virtual time and a fixed
// tie-break (completions before arrivals at the same instant, then arrival order), so
// the same inputs give the same records, bit for bit. The scheduler chooses only
// after every event of an instant has been handled: a burst arriving at once, or a
// completion and the request its client issues with zero think time, are all in the
// queue when it chooses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emulator/device/drive_queue.hpp"
#include "emulator/device/virtual_device.hpp"
#include "emulator/sim/arrivals.hpp"
#include "emulator/sim/measured_sample.hpp"
#include "predictor/device_model.hpp"
#include "schedulers/dispatch/request_record.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched {

// A change of scheduler during a run, as the filter's control socket makes one.
struct SchedulerSwitch {
  Millis at_ms = 0.0;  // the first choice at or after this time uses `spec`
  std::string spec;
};

struct SimConfig {
  std::size_t depth = 1;             // requests at the device at once, >= 1
  std::uint64_t warmup = 1000;       // JW: 1000 warm-up requests
  std::uint64_t measured = 2000;     // JW: 2000 measured; 0: all after warm-up (until the source ends)
  // Keep-warm arrivals allowed while measured requests are outstanding; when they run
  // out, arrivals stop, the queue drains and the run is marked saturated. 0: warmup +
  // measured.
  std::uint64_t keep_warm_max = 0;
  // Stop the run as saturated when more than this many requests wait. 0: no limit.
  std::size_t max_queue = 0;
  // An open run is also saturated when the queue grew during the measurement window by
  // more than this fraction of the window's arrivals (and by more than 50 requests):
  // arrivals outpaced completions, so the finite run's mean says nothing stable.
  double max_growth = 0.05;
  // Keep the measured requests' records in the result.
  bool keep_records = true;
  // The device's jitter (emulator/device/jitter.hpp); rpm error needs the emulator.
  DeviceOptions device;
  // The drive's own command queue; none: the device serves in dispatch order (today's).
  std::optional<DriveQueueOptions> drive_queue;
  // Scheduler switches during the run, in time order (a bad spec throws SpecError then).
  std::vector<SchedulerSwitch> switches;
};

struct SimResult {
  std::vector<RequestRecord> measured;  // measured requests by seq (if keep_records)
  std::uint64_t arrivals = 0;           // requests that entered the queue
  std::uint64_t completions = 0;        // requests that completed (all phases)
  std::uint64_t measured_completed = 0;
  Millis end_ms = 0.0;                  // virtual time when the run stopped
  // The measurement window: first measured arrival to last measured completion, and
  // how long the device was busy inside it.
  Millis window_start_ms = 0.0;
  Millis window_end_ms = 0.0;
  Millis busy_in_window_ms = 0.0;
  std::uint64_t completions_in_window = 0;  // any phase
  std::uint64_t arrivals_in_window = 0;     // any phase, from the first measured arrival
  std::size_t max_queue_seen = 0;
  bool saturated = false;
  std::string saturation;  // why, when saturated
  std::size_t switches_made = 0;  // of SimConfig::switches
  // The scheduler's own counters at the end of the run (Scheduler::counters).
  std::vector<std::pair<std::string, double>> scheduler_counters;
};

class Simulator {
 public:
  // The model must outlive the simulator; the scheduler must have been built for it.
  Simulator(const DeviceModel& model, std::unique_ptr<Scheduler> scheduler, SimConfig cfg = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Called once for every request that completes, in completion order (all phases).
  void on_complete(std::function<void(const RequestRecord&)> f);

  // Storage for the measured records: a previous run's SimResult::measured, reused so
  // that a run of many replications neither allocates nor clears it for each one.
  void reuse(std::vector<RequestRecord>&& measured);

  // Each measured request's sample (what the summary reads of it) into `samples`, by
  // seq - warmup, as it completes; a saturated run's are then packed to those done.
  // Needs SimConfig::measured > 0. `samples` must outlive run(); its storage is reused.
  // (What a run that keeps no records wants: no call per completion, no whole record.)
  void collect(std::vector<MeasuredSample>& samples);

  // Runs an open workload (one run per Simulator).
  SimResult run(ArrivalStream& arrivals);
  // Runs a closed workload.
  SimResult run(ClosedStream& clients);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace disksched
