// The sled of a CMU MEMS device: seek time in x and y (Hong et al. 2003, eqs. 1-6).
//
// Mechanics. Each axis is a mass on springs driven by a bang-bang actuator:
//     m x'' = +-F - k x,
// full force towards the target until the switch point x_m, full force against the motion
// after it (eqs. 3, 4). The switch point follows from equal kinetic energy at both ends
// (eq. 2):  x_m = (x0 + x1) / 2 + k / (4 F) (x1^2 - x0^2).
// With a = F / m, omega^2 = k / m and c = F / k = a / omega^2:
//  - the spring factor s is CMU's: at full displacement (half the mobility L from the
//    centre) the spring force is s times the actuator force, k L / 2 = s F, so
//    omega^2 = 2 s a / L and c = L / (2 s). This is the definition in DiskSim 4.0's
//    piecewise seek and turnaround code and in Griffin et al.; DiskSim's own
//    implementation of Hong's equations instead uses k / F = s / L (half the stiffness),
//    which a spring factor of s / 2 here reproduces. s = 0 is a sled without springs.
//  - x: the sled starts and ends at rest, then settles: t_x = base + settle (eq. 5);
//    settle = constants / (2 pi f_resonant), 0.215 ms for one constant at 739 Hz. No
//    settle and no motion when x does not change.
//  - y: the sled moves at the access speed v at both ends, in the direction of the access
//    (eq. 6). Bit columns with an even index are read moving +y, odd ones moving -y
//    (Hong sec. 4-5). A seek whose target lies behind the sled, or whose target direction
//    differs, adds turnarounds: reversing a velocity +-v at y under the actuator force
//    takes (2 / omega) atan((v / omega) / (c +- y)) exactly (2 v / a without springs;
//    DiskSim approximates it as 2 v / (a +- omega^2 y)). A turnaround followed by a base
//    seek (or the reverse) is one bang-bang trajectory with a single switch, so the sum
//    is exact, not an estimate.
//  - seek = max(t_x, t_y) (eq. 1): the axes move in parallel.
// The sled state between requests is (x column, y, direction of y motion); the sled is
// taken to keep that state while idle, as DiskSim's model does.
//
// Two implementations, tested against each other and against numerical integration of
// the equation of motion: `*_eq_ms` evaluates Hong's equations as printed, with libm's
// acos / asin; the fast path, used by the model, evaluates the same quantities through
// the phase-plane triangle identity (the two arcs of a base seek are angles of a triangle
// with sides R0, R1 and 2c, so eq. 5 reduces to one arcsine and eq. 6 to one arcsine and
// two per-position angles), with the per-position terms tabulated for every whole bit y
// and the arcsine from a table. Agreement: within 1e-6 ms (tested; the arcsine table's
// bound, 4.6e-8 rad, is 3e-8 ms of seek time).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/mems/mems_params.hpp"

namespace disksched {

class MemsSled {
 public:
  // `spring_factor` < 0 takes the params' own.
  explicit MemsSled(const MemsParams& p, double spring_factor = -1.0);

  // Positions: x a bit column in [0, bits_x); y in bits from the tip region's lower edge,
  // [0, bits_y]; dir +1 or -1, the direction of y motion at the access speed.
  Millis seek_ms(std::int64_t x0, double y0, int d0, std::int64_t x1, double y1, int d1) const {
    const Millis tx = x_seek_ms(x0, x1);
    const Millis ty = y_seek_ms(y0, d0, y1, d1);
    return tx > ty ? tx : ty;
  }
  // With settle; 0 if x0 == x1.
  Millis x_seek_ms(std::int64_t x0, std::int64_t x1) const;
  Millis y_seek_ms(double y0, int d0, double y1, int d1) const;
  // Base y seek between lo <= hi, at the access speed at both ends, no turnaround.
  Millis y_base_ms(double lo, double hi) const;
  // Reversing the y velocity dir * v at y.
  Millis turnaround_ms(double y, int dir) const;

  // The reference: Hong's eqs. 2, 5 and 6 as printed, libm's acos / asin.
  Millis seek_eq_ms(std::int64_t x0, double y0, int d0, std::int64_t x1, double y1, int d1) const;
  Millis x_seek_eq_ms(std::int64_t x0, std::int64_t x1) const;
  Millis y_seek_eq_ms(double y0, int d0, double y1, int d1) const;
  Millis y_base_eq_ms(double lo, double hi) const;
  Millis turnaround_eq_ms(double y, int dir) const;

  // Number of turnarounds a y seek needs (0, 1 or 2).
  static int turnarounds(double y0, int d0, double y1, int d1);

  Millis settle_ms() const { return settle_ms_; }
  double spring_factor() const { return spring_factor_; }
  std::int64_t bits_x() const { return bits_x_; }
  std::int64_t bits_y() const { return bits_y_; }

  // Physical view, SI units, for tests and tools: displacement from the sled's centre.
  double x_offset_m(std::int64_t col) const { return (static_cast<double>(col) + 0.5) * cell_m_ - half_x_m_; }
  double y_offset_m(double y) const { return y * cell_m_ - half_y_m_; }
  double accel_m_s2() const { return a_; }
  double access_speed_m_s() const { return v_; }
  // omega^2 = k / m per axis (0 without springs).
  double omega2_x() const { return omega2_x_; }
  double omega2_y() const { return omega2_y_; }
  // Eq. 2 for an axis with k/m = omega2: the switch point of a seek from lo to hi.
  double switch_point_m(double lo_m, double hi_m, double omega2) const;

 private:
  struct YTerms {      // per y position, phase-plane point (y, v / omega)
    double r_up;       // distance to the +F centre (c, 0)
    double r_dn;       // distance to the -F centre (-c, 0)
    double b_up;       // angle at (c, 0) from the axis, atan(w / (c - y))
    double b_dn;       // angle at (-c, 0) from the axis, atan(w / (c + y))
  };
  YTerms y_terms(double y) const {
    if (y >= 0.0 && y <= static_cast<double>(bits_y_)) {
      const auto i = static_cast<std::size_t>(y);
      if (static_cast<double>(i) == y) return y_table_[i];
    }
    return make_y_terms(y_offset_m(y));
  }
  YTerms make_y_terms(double y_m) const;
  // The base seek as an angle of the phase-plane rotation: pi - gamma - b0 - b1, where
  // pi - gamma = 2 asin(z) is the triangle's exterior angle at the switch point.
  double base_angle(const YTerms& lo, const YTerms& hi) const;
  // Without springs: accelerate, then decelerate, over d metres.
  Millis base_no_spring_ms(double d_m) const { return 2000.0 * (std::sqrt(v_ * v_ + a_ * d_m) - v_) / a_; }

  std::int64_t bits_x_, bits_y_;
  double cell_m_, half_x_m_, half_y_m_;
  double a_, v_;
  double spring_factor_;
  bool spring_;
  double omega2_x_, omega2_y_;
  double c_x_, c_y_;                 // F / k per axis (metres)
  double inv_omega_x_ms_, inv_omega_y_ms_;
  double w_;                         // v / omega_y (metres)
  double settle_ms_;
  const double* asin_;               // the shared arcsine table
  std::vector<YTerms> y_table_;      // for y = 0 .. bits_y
};

// asin on [0, 1] from a table, within 5e-8 rad (tested).
double mems_asin_fast(double z);

namespace mems_detail {

// asin on [0, 0.5] tabulated at kAsinIntervals intervals, interpolated linearly: the
// error is at most max|asin''| h^2 / 8 = 0.77 (0.5 / 1024)^2 / 8 = 2.3e-8 rad; on (0.5, 1]
// asin z = pi/2 - 2 asin(sqrt((1 - z) / 2)), so at most 4.6e-8 rad there.
inline constexpr int kAsinIntervals = 1024;
const double* asin_table();

// Branch-free: which side of 0.5 z falls on is as random as the seeks themselves.
inline double asin_fast(const double* v, double z) {  // z in [0, 1]
  const double low = static_cast<double>(z <= 0.5);
  const double sq = std::sqrt((1.0 - z) * 0.5);
  const double s = sq + low * (z - sq);
  const double f = s * (2.0 * kAsinIntervals);
  const auto i = static_cast<int>(f);
  const double r = v[i] + (f - i) * (v[i + 1] - v[i]);
  return r + (1.0 - low) * (1.5707963267948966 - 3.0 * r);
}

}  // namespace mems_detail

inline Millis MemsSled::x_seek_ms(std::int64_t x0, std::int64_t x1) const {
  if (x0 == x1) return 0.0;
  const std::int64_t first = x0 < x1 ? x0 : x1;
  const double d = static_cast<double>((x0 < x1 ? x1 : x0) - first) * cell_m_;
  if (!spring_) return 2000.0 * std::sqrt(d / a_) + settle_ms_;
  // Triangle (c - lo, c + hi, 2c): the base seek's two arcs sum to pi minus the angle
  // opposite 2c, phi = 2 asin(sqrt(d (d + 4c) / (4 (c - lo)(c + hi)))).
  const double lo = x_offset_m(first), hi = lo + d;
  double z2 = d * (d + 4.0 * c_x_) / (4.0 * (c_x_ - lo) * (c_x_ + hi));
  z2 = z2 < 1.0 ? z2 : 1.0;
  return 2.0 * mems_detail::asin_fast(asin_, std::sqrt(z2)) * inv_omega_x_ms_ + settle_ms_;
}

inline double MemsSled::base_angle(const YTerms& lo, const YTerms& hi) const {
  const double r0 = lo.r_up, r1 = hi.r_dn, s = r0 + r1;
  double z2 = (s - 2.0 * c_y_) * (s + 2.0 * c_y_) / (4.0 * r0 * r1);
  z2 = z2 < 1.0 ? z2 : 1.0;
  const double angle = 2.0 * mems_detail::asin_fast(asin_, std::sqrt(z2)) - lo.b_up - hi.b_dn;
  return angle > 0.0 ? angle : 0.0;
}

inline Millis MemsSled::y_seek_ms(double y0, int d0, double y1, int d1) const {
  // Hong's seek cases (DiskSim's eight, folded): a base seek between the two positions,
  // a turnaround at the start when the target is not ahead, and one at the end when the
  // arrival direction must change: turn(y0, d0) and turn(y1, -d1). Written with selects,
  // not branches: the cases are as random as the requests.
  const bool up0 = d0 >= 0, up1 = d1 >= 0;
  if (y0 == y1 && up0 == up1) return 0.0;
  const bool ahead = up0 ? y1 > y0 : y1 < y0;
  const double turn_start = static_cast<double>(!ahead);
  const double turn_end = static_cast<double>((up0 == up1) != ahead);
  if (!spring_)
    return base_no_spring_ms(std::abs(y1 - y0) * cell_m_) + (turn_start + turn_end) * 2000.0 * v_ / a_;
  const YTerms e[2] = {y_terms(y0), y_terms(y1)};
  const int hi_is_1 = y0 < y1;
  double angle = base_angle(e[1 - hi_is_1], e[hi_is_1]);
  // Reversing +v takes 2 b_dn / omega, reversing -v 2 b_up / omega.
  const double b0[2] = {e[0].b_up, e[0].b_dn};
  const double b1[2] = {e[1].b_dn, e[1].b_up};
  angle += 2.0 * (turn_start * b0[up0] + turn_end * b1[up1]);
  return angle * inv_omega_y_ms_;
}

}  // namespace disksched
