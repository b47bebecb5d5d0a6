// Replays a trace of measured times on the emulated device and compares, request for
// request, the simulated times with the measured ones.
//
// A DiskSim validate trace is replayed the way DiskSim does: closed, one request at a
// time, each issued `think` (the trace's nextinter) after the previous one completed.
//
// A trace measured on a running system (srt, msr, blkparse: TraceRecord::issued_ms and
// done_ms) is replayed open: each request reaches the drive at its own measured issue time
// (its arrival plus issued_ms), in that order, through a drive queue as deep as the trace
// had requests in flight at the device, served first come first served (or by the
// firmware policy asked for). Its measured time is done_ms - issued_ms, from the issue to
// the completion; its simulated time is the same on the emulated device, waiting behind
// the requests before it included.
//
// Access time, as DiskSim's validate traces measure it: from the command's issue at the
// drive to its completion. On our device that is Service::completion_ms - arrival_ms; at
// depth 1 the drive is idle at every issue, so it equals service_ms(): command overhead,
// seek, rotational wait, transfer and completion overhead (and jitter, if asked for).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/experiments/trace/trace_reader.hpp"
#include "emulator/device/virtual_device.hpp"
#include "predictor/device_model.hpp"

namespace disksched {

// One request of the trace, measured and simulated.
struct ValidateSample {
  std::size_t index = 0;        // 1-based request number (the line, in a file without blanks)
  Op op = Op::Read;
  BufferFlag buffer = BufferFlag::None;
  std::uint64_t lba = 0;        // in the trace's 512-byte blocks
  std::uint32_t blocks = 0;
  Millis issue_ms = 0.0;        // simulated issue time at the drive
  Millis measured_ms = 0.0;
  Millis simulated_ms = 0.0;
  bool simulated_hit = false;   // the drive's buffer served it (a profile with a cache)
  Cost cost;                    // the model's breakdown of the simulated time
  std::int64_t cylinder = 0;    // where the request starts (disk; 0 for fixed)
  std::int32_t head = 0;
  Origin origin = Origin::None; // who waited for it, as the trace says
  Millis simulated_wait_ms = 0.0;  // open replay: issue to the mechanism's start
  std::size_t in_flight = 1;    // open replay: measured requests at the device at its issue,
                                // itself included
};

// Throws ModelError for a request beyond the device (naming the request).
std::vector<ValidateSample> replay_validate(const DeviceModel& model, const TraceData& trace,
                                            const DeviceOptions& options = {});

struct OpenReplayOptions {
  unsigned depth = 0;            // the drive's queue; 0: the most the trace had in flight
  std::string firmware = "fcfs"; // the drive's policy (a scheduler spec)
};

struct OpenReplay {
  std::vector<ValidateSample> samples;  // the requests with measured times, in issue order
  std::size_t unmeasured = 0;  // requests without them: replayed (they kept the drive busy
                               // as they did on the traced system), not compared
  std::size_t depth_max = 0;   // the most measured requests in flight at the device
  double depth_mean = 0.0;     // in flight at each measured issue, itself included
  unsigned depth = 1;          // the drive queue's depth in the replay
};

// Throws ModelError for a request beyond the device (naming it), std::invalid_argument
// for a trace without measured times, SpecError for a firmware policy the registry refuses.
OpenReplay replay_open(const DeviceModel& model, const TraceData& trace,
                       const OpenReplayOptions& replay = {}, const DeviceOptions& options = {});

// A group of samples compared: "all", or a class the flags allow.
struct ValidateClass {
  std::string name;
  std::size_t requests = 0;
  double mean_measured_ms = 0.0;
  double mean_simulated_ms = 0.0;
  double demerit_ms = 0.0;       // exact (demerit.hpp)
  double demerit_grid_ms = 0.0;  // at p = 0.0001 .. 1
  double demerit_histogram_ms = 0.0;  // as DiskSim's rms computes it (its published figures)
  std::size_t simulated_hits = 0; // requests the simulated drive's buffer served
};

ValidateClass compare(const std::string& name, const std::vector<ValidateSample>& samples);

// The split by class: "read hit" and "read miss" when the reads' flags tell them apart
// (some say Hit and some Miss), else "read"; and "write". Classes without requests are
// left out.
std::vector<ValidateClass> compare_by_class(const std::vector<ValidateSample>& samples);

// The split of a measured trace: by op ("read", "write", "trim"), then, in a trace that
// says who waits for its requests, by op and origin ("read sync", "write async", ...).
// Classes without requests are left out.
std::vector<ValidateClass> compare_by_op_and_origin(const std::vector<ValidateSample>& samples);

// The `n` requests with the largest |measured - simulated|, largest first (ties: earlier
// request first).
std::vector<ValidateSample> worst_requests(const std::vector<ValidateSample>& samples,
                                           std::size_t n);

}  // namespace disksched
