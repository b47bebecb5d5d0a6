// CLOCK_MONOTONIC in milliseconds, and a precise wait for the real-device targets.
#pragma once

#include "predictor/device_model.hpp"

namespace disksched::extract {

Millis monotonic_ms();
// Sleeps most of the way, then spins: issue times land within microseconds.
void wait_until_monotonic(Millis t_ms);
// Involuntary context switches of the calling thread so far (preemptions).
long involuntary_switches();

}  // namespace disksched::extract
