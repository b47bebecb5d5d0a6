// CLOCK_MONOTONIC in milliseconds, and a precise wait for the real-device targets.
#pragma once

#include "common/clock.hpp"
#include "predictor/device_model.hpp"
#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

using disksched::monotonic_ms;  // common/clock.hpp
// Sleeps most of the way, then spins: issue times land within microseconds.
void wait_until_monotonic(Millis t_ms);
// Involuntary context switches of the calling thread so far (preemptions).
long involuntary_switches();

// Runs one probe's I/O (`io` returns whether it succeeded, into *ok) with the clock read
// just around it and preemptions counted across it.
template <typename Io>
ProbeResult timed_probe(Io&& io, bool* ok) {
  ProbeResult r;
  const long cs = involuntary_switches();
  r.issue_ms = monotonic_ms();
  *ok = io();
  r.complete_ms = monotonic_ms();
  r.disturbed = involuntary_switches() != cs;
  return r;
}

}  // namespace disksched::extract
