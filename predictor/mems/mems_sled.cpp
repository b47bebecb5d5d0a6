#include "predictor/mems/mems_sled.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace disksched {

namespace mems_detail {

const double* asin_table() {
  struct Table {
    double v[kAsinIntervals + 2];
    Table() {
      for (int i = 0; i < kAsinIntervals + 2; ++i) v[i] = std::asin(0.5 * i / kAsinIntervals);
    }
  };
  static const Table t;
  return t.v;
}

}  // namespace mems_detail

namespace {

inline double clamp1(double r) { return std::clamp(r, -1.0, 1.0); }

// Hong's seek cases (DiskSim's eight, folded by direction): the y seek is a base seek
// between the two positions plus the turnarounds that the directions force.
template <class Base, class Turn>
Millis y_cases(double y0, int d0, double y1, int d1, const Base& base, const Turn& turn) {
  d0 = d0 < 0 ? -1 : 1;
  d1 = d1 < 0 ? -1 : 1;
  const double lo = std::min(y0, y1), hi = std::max(y0, y1);
  const bool ahead = d0 > 0 ? y1 > y0 : y1 < y0;
  if (d0 == d1) {
    if (y0 == y1) return 0.0;
    if (ahead) return base(lo, hi);                          // seek
    return turn(y0, d0) + base(lo, hi) + turn(y1, -d0);      // turn, seek back, turn
  }
  if (ahead) return base(lo, hi) + turn(y1, d0);             // seek past, turn
  return turn(y0, d0) + base(lo, hi);                        // turn, seek back
}

}  // namespace

double mems_asin_fast(double z) {
  return mems_detail::asin_fast(mems_detail::asin_table(), std::clamp(z, 0.0, 1.0));
}

MemsSled::MemsSled(const MemsParams& p, double spring_factor)
    : bits_x_(p.bits_x),
      bits_y_(p.bits_y),
      cell_m_(p.bit_cell_nm * 1e-9),
      half_x_m_(p.mobility_x_m() / 2),
      half_y_m_(p.mobility_y_m() / 2),
      a_(p.accel_m_s2),
      v_(p.access_speed_m_s),
      spring_factor_(spring_factor < 0 ? p.spring_factor : spring_factor),
      spring_(spring_factor_ > 0),
      settle_ms_(p.settle_ms()),
      asin_(mems_detail::asin_table()) {
  p.validate();
  if (!(spring_factor_ < 1.0))
    throw ModelError("mems: spring factor must be in [0, 1), got " + std::to_string(spring_factor_));
  omega2_x_ = 2.0 * spring_factor_ * a_ / p.mobility_x_m();
  omega2_y_ = 2.0 * spring_factor_ * a_ / p.mobility_y_m();
  if (spring_) {
    c_x_ = a_ / omega2_x_;
    c_y_ = a_ / omega2_y_;
    inv_omega_x_ms_ = 1000.0 / std::sqrt(omega2_x_);
    inv_omega_y_ms_ = 1000.0 / std::sqrt(omega2_y_);
    w_ = v_ / std::sqrt(omega2_y_);
    y_table_.resize(static_cast<std::size_t>(bits_y_) + 1);
    for (std::int64_t y = 0; y <= bits_y_; ++y)
      y_table_[static_cast<std::size_t>(y)] = make_y_terms(y_offset_m(static_cast<double>(y)));
  } else {
    c_x_ = c_y_ = inv_omega_x_ms_ = inv_omega_y_ms_ = w_ = 0.0;
  }
}

MemsSled::YTerms MemsSled::make_y_terms(double y_m) const {
  YTerms t;
  t.r_up = std::hypot(c_y_ - y_m, w_);
  t.r_dn = std::hypot(c_y_ + y_m, w_);
  t.b_up = std::atan2(w_, c_y_ - y_m);
  t.b_dn = std::atan2(w_, c_y_ + y_m);
  return t;
}

double MemsSled::switch_point_m(double lo_m, double hi_m, double omega2) const {
  // k / (4 F) = omega^2 / (4 a)
  return (lo_m + hi_m) / 2 + omega2 / (4.0 * a_) * (hi_m * hi_m - lo_m * lo_m);
}

// ---- fast path ----

Millis MemsSled::y_base_ms(double lo, double hi) const {
  if (!spring_) return base_no_spring_ms((hi - lo) * cell_m_);
  return base_angle(y_terms(lo), y_terms(hi)) * inv_omega_y_ms_;
}

Millis MemsSled::turnaround_ms(double y, int dir) const {
  if (!spring_) return 2000.0 * v_ / a_;
  const YTerms t = y_terms(y);
  return 2.0 * (dir > 0 ? t.b_dn : t.b_up) * inv_omega_y_ms_;
}

// ---- Hong's equations as printed ----

Millis MemsSled::x_seek_eq_ms(std::int64_t x0, std::int64_t x1) const {
  if (x0 == x1) return 0.0;
  // Eq. 5 is written for a seek towards +x; a seek towards -x is its time reversal.
  const double lo = x_offset_m(std::min(x0, x1)), hi = x_offset_m(std::max(x0, x1));
  if (!spring_) return 2000.0 * std::sqrt((hi - lo) / a_) + settle_ms_;
  const double c = c_x_;                        // m a / k
  const double sqrt_m_k = 1.0 / std::sqrt(omega2_x_);
  const double xm = switch_point_m(lo, hi, omega2_x_);  // eq. 2
  const double t = sqrt_m_k * std::acos(clamp1((xm - c) / (lo - c))) +
                   sqrt_m_k * std::acos(clamp1((xm + c) / (hi + c)));
  return 1000.0 * t + settle_ms_;
}

Millis MemsSled::y_base_eq_ms(double lo, double hi) const {
  const double y0 = y_offset_m(lo), y1 = y_offset_m(hi);
  if (!spring_) return base_no_spring_ms(y1 - y0);
  const double c = c_y_;
  const double sqrt_m_k = 1.0 / std::sqrt(omega2_y_);
  const double vw = v_ * sqrt_m_k;              // v0 sqrt(m / k), v0 = v1 = v
  const double ym = switch_point_m(y0, y1, omega2_y_);
  const double r0 = std::sqrt((y0 - c) * (y0 - c) + vw * vw);
  const double r1 = std::sqrt((y1 + c) * (y1 + c) + vw * vw);
  const double t = sqrt_m_k * std::asin(clamp1((ym - c) / r0)) -
                   sqrt_m_k * std::asin(clamp1((y0 - c) / r0)) +
                   sqrt_m_k * std::asin(clamp1((y1 + c) / r1)) -
                   sqrt_m_k * std::asin(clamp1((ym + c) / r1));
  return 1000.0 * t;
}

Millis MemsSled::turnaround_eq_ms(double y, int dir) const {
  if (!spring_) return 2000.0 * v_ / a_;
  // Reversing +v under -F (centre -c) or -v under +F (centre +c).
  const double ym = y_offset_m(y);
  const double u = dir > 0 ? c_y_ + ym : c_y_ - ym;
  return 1000.0 * 2.0 / std::sqrt(omega2_y_) * std::atan(w_ / u);
}

Millis MemsSled::y_seek_eq_ms(double y0, int d0, double y1, int d1) const {
  return y_cases(
      y0, d0, y1, d1, [this](double lo, double hi) { return y_base_eq_ms(lo, hi); },
      [this](double y, int d) { return turnaround_eq_ms(y, d); });
}

Millis MemsSled::seek_eq_ms(std::int64_t x0, double y0, int d0, std::int64_t x1, double y1,
                            int d1) const {
  return std::max(x_seek_eq_ms(x0, x1), y_seek_eq_ms(y0, d0, y1, d1));
}

int MemsSled::turnarounds(double y0, int d0, double y1, int d1) {
  d0 = d0 < 0 ? -1 : 1;
  d1 = d1 < 0 ? -1 : 1;
  const bool ahead = d0 > 0 ? y1 > y0 : y1 < y0;
  if (d0 == d1) return (ahead || y0 == y1) ? 0 : 2;
  return 1;
}

}  // namespace disksched
