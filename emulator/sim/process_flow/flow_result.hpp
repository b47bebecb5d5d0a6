// What a process-flow run measures (GP Tables 3 and 4): the system's metrics first,
// then the I/O subsystem's beside them.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

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

// The average of runs that differ only in their seeds: times, counts and sums averaged
// (so every mean above is pooled over the runs), maxima the mean of each run's maximum.
inline FlowResult average(const std::vector<FlowResult>& runs) {
  FlowResult a;
  if (runs.empty()) return a;
  const double n = static_cast<double>(runs.size());
  auto mean = [&](auto field) {
    double s = 0;
    for (const FlowResult& r : runs) s += static_cast<double>(field(r));
    return s / n;
  };
  auto count = [&](auto field) { return static_cast<std::uint64_t>(std::llround(mean(field))); };
  a.execution_ms = mean([](const FlowResult& r) { return r.execution_ms; });
  a.false_idle_ms = mean([](const FlowResult& r) { return r.false_idle_ms; });
  a.idle_ms = mean([](const FlowResult& r) { return r.idle_ms; });
  a.context_switches = count([](const FlowResult& r) { return r.context_switches; });
  a.io_interrupts = count([](const FlowResult& r) { return r.io_interrupts; });
  a.clock_interrupts = count([](const FlowResult& r) { return r.clock_interrupts; });
  a.cache_waits = count([](const FlowResult& r) { return r.cache_waits; });
  a.decision_ms = mean([](const FlowResult& r) { return r.decision_ms; });
  for (std::size_t c = 0; c < a.classes.size(); ++c) {
    a.classes[c].count = count([c](const FlowResult& r) { return r.classes[c].count; });
    a.classes[c].sum_response_ms = mean([c](const FlowResult& r) { return r.classes[c].sum_response_ms; });
    a.classes[c].max_response_ms = mean([c](const FlowResult& r) { return r.classes[c].max_response_ms; });
  }
  a.tl_needed = count([](const FlowResult& r) { return r.tl_needed; });
  a.tl_in_time = count([](const FlowResult& r) { return r.tl_in_time; });
  a.sum_limit_ms = mean([](const FlowResult& r) { return r.sum_limit_ms; });
  a.requests = count([](const FlowResult& r) { return r.requests; });
  a.buffer_hits = count([](const FlowResult& r) { return r.buffer_hits; });
  a.sum_access_ms = mean([](const FlowResult& r) { return r.sum_access_ms; });
  a.sum_seek_cylinders = mean([](const FlowResult& r) { return r.sum_seek_cylinders; });
  a.sum_seek_ms = mean([](const FlowResult& r) { return r.sum_seek_ms; });
  a.sum_response_ms = mean([](const FlowResult& r) { return r.sum_response_ms; });
  a.sum_delay_ms = mean([](const FlowResult& r) { return r.sum_delay_ms; });
  a.last_io_ms = mean([](const FlowResult& r) { return r.last_io_ms; });
  return a;
}

}  // namespace disksched::flow
