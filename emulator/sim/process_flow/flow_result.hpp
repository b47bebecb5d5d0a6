// What a process-flow run measures (GP Tables 3 and 4): the system's metrics first,
// then the I/O subsystem's beside them.
#pragma once

#include <array>
#include <cstdint>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched::flow {

// Response times (arrival at the queue to completion at the drive) of one class.
struct ClassStats {
  std::uint64_t count = 0;
  double sum_response_ms = 0.0;
  double max_response_ms = 0.0;
  double mean_response_ms() const { return count ? sum_response_ms / static_cast<double>(count) : 0.0; }
  void add(double response_ms) {
    ++count;
    sum_response_ms += response_ms;
    if (response_ms > max_response_ms) max_response_ms = response_ms;
  }
};

struct FlowResult {
  // The system.
  Millis execution_ms = 0.0;    // when the last process exited
  Millis false_idle_ms = 0.0;   // CPU idle while a process waits for I/O (summed over CPUs)
  Millis idle_ms = 0.0;         // CPU idle with nobody waiting, before the end
  std::uint64_t context_switches = 0;
  std::uint64_t io_interrupts = 0;
  std::uint64_t clock_interrupts = 0;
  std::uint64_t cache_waits = 0;  // a process found every cache slot dirty or in flight
  Millis decision_ms = 0.0;       // CPU time the scheduler's choices took (decision_cost)

  // Per class, indexed by IoClass.
  std::array<ClassStats, 3> classes{};
  // Time-limited requests a process came to need: how long after the issue (the limit,
  // measured), and how many were done by then.
  std::uint64_t tl_needed = 0;
  std::uint64_t tl_in_time = 0;
  double sum_limit_ms = 0.0;
  double mean_limit_ms() const { return tl_needed ? sum_limit_ms / static_cast<double>(tl_needed) : 0.0; }
  double tl_in_time_share() const {
    return tl_needed ? static_cast<double>(tl_in_time) / static_cast<double>(tl_needed) : 0.0;
  }
  const ClassStats& of(IoClass c) const { return classes[static_cast<std::size_t>(c)]; }

  // The I/O subsystem, over every request (buffer hits count as zero seek).
  std::uint64_t requests = 0;
  std::uint64_t buffer_hits = 0;
  double sum_access_ms = 0.0;       // drive start to completion
  double sum_seek_cylinders = 0.0;
  double sum_seek_ms = 0.0;
  double sum_response_ms = 0.0;
  double sum_delay_ms = 0.0;        // arrival to dispatch (DN's "delay")
  Millis last_io_ms = 0.0;          // the last completion (the backlog drained)
  double mean(double sum) const { return requests ? sum / static_cast<double>(requests) : 0.0; }
  double mean_access_ms() const { return mean(sum_access_ms); }
  double mean_seek_cylinders() const { return mean(sum_seek_cylinders); }
  double mean_seek_ms() const { return mean(sum_seek_ms); }
  double mean_response_ms() const { return mean(sum_response_ms); }
  double mean_delay_ms() const { return mean(sum_delay_ms); }
};

}  // namespace disksched::flow
