// How the platter turns: its period and its phase (the angle at time 0). A value, not a
// property of the model: the profile gives one (DeviceModel::spin), the head tracker
// learns a better one from completions and passes it with every HeadState it predicts,
// and the emulator's platter may turn at another speed than the profile says. Angles
// are in rotations, [0, 1).
#pragma once

#include <cmath>
#include <cstdint>

namespace disksched {

// x - floor(x): an angle of x rotations in [0, 1). Bit for bit the same as that
// expression, in half the instructions of the inlined floor: for |x| < 2^62 the
// truncation is exact, x - trunc(x) (x's fraction) is exact, and adding 1 to a negative
// one rounds the same real number x - floor(x) once (adding 0 makes -0's result +0).
inline double frac_rotations(double x) {
  if (!(std::fabs(x) < 0x1p62)) [[unlikely]] return x - std::floor(x);  // huge, inf, NaN
  const double r = x - static_cast<double>(static_cast<std::int64_t>(x));
  return r + (r < 0.0 ? 1.0 : 0.0);
}

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
    return frac_rotations(t * per_ms + phase);
  }
};

}  // namespace disksched
