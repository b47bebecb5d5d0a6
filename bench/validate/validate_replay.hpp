// Replays a DiskSim validate trace on the emulated device the way DiskSim does: closed,
// one request at a time, each issued `think` (the trace's nextinter) after the previous
// one completed, and compares the simulated access times with the measured ones.
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

#include "bench/sim/trace/trace_reader.hpp"
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
};

// Throws ModelError for a request beyond the device (naming the request).
std::vector<ValidateSample> replay_validate(const DeviceModel& model, const TraceData& trace,
                                            const DeviceOptions& options = {});

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

// The `n` requests with the largest |measured - simulated|, largest first (ties: earlier
// request first).
std::vector<ValidateSample> worst_requests(const std::vector<ValidateSample>& samples,
                                           std::size_t n);

}  // namespace disksched
