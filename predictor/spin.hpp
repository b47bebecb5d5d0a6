// How the platter turns: its period and its phase (the angle at time 0). A value, not a
// property of the model: the profile gives one (DeviceModel::spin), the head tracker
// learns a better one from completions and passes it with every HeadState it predicts,
// and the emulator's platter may turn at another speed than the profile says. Angles
// are in rotations, [0, 1).
#pragma once

#include <cmath>

namespace disksched {

struct Spin {
  double period_ms = 0.0;  // 0: not given (a model then uses its own)
  double per_ms = 0.0;     // rotations per ms, 1 / period_ms (the inner loop multiplies)
  double phase = 0.0;      // angle at time 0

  // Turning with `period_ms` (> 0) and at `phase` at time 0.
  static Spin of(double period_ms, double phase) {
    Spin s;
    s.period_ms = period_ms;
    s.per_ms = 1.0 / period_ms;
    s.phase = phase - std::floor(phase);
    return s;
  }
  // Turning with `period_ms` and at `angle` at time `t`.
  static Spin anchored(double t, double angle, double period_ms) {
    Spin s = of(period_ms, 0.0);
    const double p = angle - t * s.per_ms;
    s.phase = p - std::floor(p);
    return s;
  }

  bool given() const { return period_ms > 0.0; }
  double angle_at(double t) const {
    const double a = t * per_ms + phase;
    return a - std::floor(a);
  }
};

}  // namespace disksched
