// The emulated disk's true rotation speed differs from the model's, optionally drifting.
//
//   rpm-error=E              the platter turns (1 + E) times as fast as the model says
//   rpm-error=E,drift=D      ... and E grows by D per second of device time
//
// E and D are fractions (0.001) or percentages (0.1%); either may be negative. At device
// time t ms the speed factor is f(t) = 1 + E + D t / 1000, so the true phase is
//
//   phase(t) = angle_at_model(0) + (t (1 + E) + D t^2 / 2000) / T     (rotations)
//
// where T is the model's rotation period. Before each request the device re-anchors its
// model there (DeviceModel::anchor_rotation with period T / f(start)); within one request
// the speed is taken as constant. The predictor in the filter keeps the nominal model, so
// the difference is what head tracking has to find.
#pragma once

#include <string>
#include <string_view>

#include "predictor/device_model.hpp"

namespace disksched {

struct RpmError {
  double error = 0.0;            // E, a fraction
  double drift_per_s = 0.0;      // D, a fraction per second of device time

  bool none() const { return error == 0.0 && drift_per_s == 0.0; }
  // f(t): true speed over model speed at device time t.
  double speed_factor(Millis t) const { return 1.0 + error + drift_per_s * t / 1000.0; }
  // Rotations turned since time 0 beyond the model's start angle (not reduced mod 1).
  double turns(Millis t, Millis period_ms) const {
    return (t * (1.0 + error) + drift_per_s * t * t / 2000.0) / period_ms;
  }
  std::string to_string() const;
};

// Throws std::invalid_argument naming what was wrong.
RpmError parse_rpm_error(std::string_view text);

}  // namespace disksched
