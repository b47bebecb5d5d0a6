// The computer around the disk in the process-flow model (GP sec. 4, Table 2): CPUs, the
// dispatcher's costs, interrupts, and whether a process woken by its I/O preempts the
// one running.
#pragma once

#include <cstddef>

#include "predictor/device_model.hpp"

namespace disksched::flow {

struct SystemParams {
  std::size_t cpus = 1;                 // GP: 1
  Millis clock_period_ms = 10.0;        // GP: a clock interrupt about every 10 ms
  Millis clock_handler_ms = 0.092;      // GP: 92 us
  Millis io_handler_ms = 0.380;         // GP: 380 us per I/O completion
  Millis context_switch_ms = 0.062;     // GP: 62 us
  // A running process is preempted after this much CPU when another is runnable
  // (rounded to clock ticks; 0: never). GP do not say; ours, SVR4's time-sharing class
  // gives about 100 ms at normal priority.
  Millis quantum_ms = 100.0;
  bool preempt_on_wake = true;          // GP Table 4: "Preempt" (their base) or not
};

}  // namespace disksched::flow
