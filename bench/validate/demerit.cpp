#include "bench/validate/demerit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "emulator/sim/stats.hpp"

namespace disksched {

namespace {

void sort_checked(std::vector<double>& xs, const char* which) {
  if (xs.empty()) throw std::invalid_argument(std::string("demerit: no ") + which + " samples");
  if (std::any_of(xs.begin(), xs.end(), [](double x) { return std::isnan(x); }))
    throw std::invalid_argument(std::string("demerit: a ") + which + " sample is NaN");
  std::sort(xs.begin(), xs.end());
}

}  // namespace

double demerit(std::vector<double> a, std::vector<double> b) {
  sort_checked(a, "first");
  sort_checked(b, "second");
  // Breakpoints of both inverse CDFs: k / (n - 1); a single sample is a constant curve.
  std::vector<double> ps = {0.0, 1.0};
  for (const auto* xs : {&a, &b})
    for (std::size_t k = 1; k + 1 < xs->size(); ++k)
      ps.push_back(static_cast<double>(k) / static_cast<double>(xs->size() - 1));
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  // Between breakpoints d(p) is linear: the integral of d^2 is w (d0^2 + d0 d1 + d1^2) / 3.
  double sum = 0.0;
  double d0 = percentile_sorted(a, 0.0) - percentile_sorted(b, 0.0);
  for (std::size_t i = 1; i < ps.size(); ++i) {
    const double d1 = percentile_sorted(a, ps[i]) - percentile_sorted(b, ps[i]);
    sum += (ps[i] - ps[i - 1]) * (d0 * d0 + d0 * d1 + d1 * d1) / 3.0;
    d0 = d1;
  }
  return std::sqrt(std::max(sum, 0.0));
}

double demerit_grid(std::vector<double> a, std::vector<double> b, int steps) {
  sort_checked(a, "first");
  sort_checked(b, "second");
  if (steps < 1) throw std::invalid_argument("demerit: steps must be >= 1");
  double sum = 0.0;
  for (int i = 1; i <= steps; ++i) {
    const double p = static_cast<double>(i) / steps;
    const double d = percentile_sorted(a, p) - percentile_sorted(b, p);
    sum += d * d;
  }
  return std::sqrt(sum / steps);
}

}  // namespace disksched
