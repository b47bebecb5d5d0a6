// What a drive sustains for one kind of load: a closed loop of N requests in flight
// (each completion issues the next at once), run in the simulator on the device model.
// The figures the tools that describe a drive by a few numbers (iocost, mClock,
// Seastar, fio) measure on real hardware, taken from the model instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "predictor/device_model.hpp"

namespace disksched {

// One load: reads or writes, random (uniform over the device) or sequential, of a
// fixed size, with `depth` requests in flight.
struct Load {
  bool write = false;
  bool sequential = false;
  std::uint64_t bytes = 4096;
  std::size_t depth = 1;

  // "randread 4k QD32", the way fio users name it.
  std::string name() const;
  // The simulator's workload spec of this load (closed loop, no think time).
  std::string workload_spec() const;
};

struct LoadResult {
  double iops = 0.0;           // completions per second
  double bytes_per_s = 0.0;
  double mean_ms = 0.0;        // response time, issue to completion
  double p99_ms = 0.0;
};

struct ProbeOptions {
  // The drive's own command queue (NCQ/TCQ) with a shortest-access-time-first firmware;
  // 1: none (the device serves in the order it is given).
  unsigned drive_queue = 1;
  std::uint64_t requests = 2000;  // measured, after the warm-up (fewer of large ones)
  std::uint64_t seed = 1;
};

class ThroughputProbe {
 public:
  // `model` must outlive the probe.
  ThroughputProbe(const DeviceModel& model, ProbeOptions opt);

  LoadResult run(const Load& load) const;
  const ProbeOptions& options() const { return opt_; }

 private:
  // Requests to run before measuring: enough to fill the drive's write-behind buffer
  // twice over, so a write load is measured at the rate the media takes it.
  std::uint64_t warmup_for(const Load& load) const;
  // Requests measured: ProbeOptions::requests, fewer for large requests.
  std::uint64_t measured_for(const Load& load) const;

  const DeviceModel& model_;
  ProbeOptions opt_;
};

}  // namespace disksched
