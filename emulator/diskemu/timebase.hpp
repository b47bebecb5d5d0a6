// How device time maps onto the real clock.
//
// Device (model) time is in milliseconds from start-up: t_model = (now - origin) /
// timescale. A device interval of d ms therefore lasts d * timescale ms of real time:
// timescale=0.1 plays ten times faster, timescale=1 is real time. Conversions towards
// the real clock round up, so a completion is never earlier than the model says.
#pragma once

#include <cmath>

#include "emulator/diskemu/clock.hpp"
#include "predictor/device_model.hpp"

namespace disksched::diskemu {

class Timebase {
 public:
  Timebase(Nanos origin_ns, double timescale) : origin_(origin_ns), scale_(timescale) {}

  Nanos origin_ns() const { return origin_; }
  double timescale() const { return scale_; }

  // Device time at real time `t`.
  Millis to_model(Nanos t) const {
    return static_cast<double>(t - origin_) / (1e6 * scale_);
  }
  // The first real nanosecond at or after device time `ms`.
  Nanos to_real(Millis ms) const {
    return origin_ + static_cast<Nanos>(std::ceil(ms * 1e6 * scale_));
  }
  // A device duration in real nanoseconds (no rounding: for statistics).
  double real_ns(Millis device_ms) const { return device_ms * 1e6 * scale_; }

 private:
  Nanos origin_;
  double scale_;
};

}  // namespace disksched::diskemu
