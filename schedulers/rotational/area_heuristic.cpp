#include "schedulers/rotational/area_heuristic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace disksched::rotational {

AreaHeuristic::AreaHeuristic(const DeviceModel& model)
    : tau_(model.sector_time_ms()), C_(std::max<std::int64_t>(1, model.cylinders())) {
  if (!(tau_ > 0.0)) tau_ = 1.0;  // non-rotating: any unit works, S below is then 1
  S_ = model.rotation_ms() > 0.0 ? std::round(model.rotation_ms() / tau_) : 1.0;
  const Millis overhead = model.locate(0, 1, Op::Read).overhead_ms;
  a_.resize(C_);
  a_lb_.resize(C_);
  for (std::int64_t d = 0; d < C_; ++d) a_[d] = (overhead + model.seek_ms(d)) / tau_;
  double running = std::numeric_limits<double>::infinity();
  for (std::int64_t d = C_ - 1; d >= 0; --d) a_lb_[d] = running = std::min(running, a_[d]);
}

std::int64_t AreaHeuristic::reach(double R) const {
  // a_lb_ is non-decreasing: the last d with a_lb_[d] < R bounds every reachable d.
  auto it = std::lower_bound(a_lb_.begin(), a_lb_.end(), R);
  return static_cast<std::int64_t>(it - a_lb_.begin()) - 1;
}

double AreaHeuristic::area(std::int64_t dc, double R) const {
  dc = dc < 0 ? -dc : dc;
  const std::int64_t r = reach(R);
  if (r < 0 || dc > 2 * r) return 0.0;
  double sum = 0.0;
  for (std::int64_t x = dc - r; x <= r; ++x) {
    const std::int64_t d1 = x < 0 ? -x : x;
    const std::int64_t d2 = x - dc < 0 ? dc - x : x - dc;
    if (d1 >= C_ || d2 >= C_) continue;
    const double room = R - a_[d1] - a_[d2];
    if (room > 0.0) sum += std::min(S_, room);
  }
  return sum;
}

const AreaHeuristic::Quadratic& AreaHeuristic::fit(std::int64_t R) const {
  if (R < 0) R = 0;
  if (static_cast<std::size_t>(R) >= fits_.size()) {
    fits_.resize(R + 1);
    fitted_.resize(R + 1, false);
  }
  if (fitted_[R]) return fits_[R];
  fitted_[R] = true;
  Quadratic& q = fits_[R];
  const double Rs = static_cast<double>(R);
  const std::int64_t r = reach(Rs);
  if (r < 0) return q;  // nothing reachable: H = 0
  const std::int64_t dmax = std::min<std::int64_t>(C_ - 1, 2 * r);
  constexpr int kSamples = 48;
  const std::int64_t step = std::max<std::int64_t>(1, (dmax + kSamples - 1) / kSamples);
  // Least squares y = q0 + q2 u, u = dc^2, over the samples with area > 0.
  double n = 0, su = 0, suu = 0, sy = 0, suy = 0;
  for (std::int64_t dc = 0; dc <= dmax; dc += step) {
    const double y = area(dc, Rs);
    if (y <= 0.0) break;  // area falls to 0 and stays there as dc grows
    const double u = static_cast<double>(dc) * static_cast<double>(dc);
    n += 1;
    su += u;
    suu += u * u;
    sy += y;
    suy += u * y;
  }
  if (n == 0) return q;
  const double det = n * suu - su * su;
  if (n < 2 || std::fabs(det) < 1e-12 * (n * suu + 1.0)) {
    q.q0 = sy / n;
    return q;
  }
  q.q0 = (sy * suu - su * suy) / det;
  q.q2 = (n * suy - su * sy) / det;
  return q;
}

double AreaHeuristic::value(std::int64_t dc, Millis remaining_ms) const {
  if (!(remaining_ms > 0.0)) return 0.0;
  const auto& q = fit(static_cast<std::int64_t>(remaining_ms / tau_));
  const double d = static_cast<double>(dc);
  return q.q0 + q.q2 * d * d;
}

}  // namespace disksched::rotational
