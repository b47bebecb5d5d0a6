// The monotonic clock, read one way everywhere real time is measured (the filter, the
// plugins, the replayer, the extractor). Simulated code never reads it: time is passed in.
#pragma once

#include <time.h>

#include <cstdint>

namespace disksched {

// CLOCK_MONOTONIC in nanoseconds.
inline std::int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// CLOCK_MONOTONIC in milliseconds.
inline double monotonic_ms() { return static_cast<double>(monotonic_ns()) * 1e-6; }

}  // namespace disksched
