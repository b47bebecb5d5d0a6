#include "tools/extract/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace disksched::extract {

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of an empty sample");
  const std::size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  double hi = v[n / 2];
  if (n % 2 == 1) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + n / 2);
  return 0.5 * (lo + hi);
}

double densest(std::vector<double> v, double width) {
  if (v.empty()) throw std::invalid_argument("densest of an empty sample");
  std::sort(v.begin(), v.end());
  std::size_t best = 0, count = 0;
  for (std::size_t lo = 0, hi = 0; lo < v.size(); ++lo) {
    while (hi < v.size() && v[hi] - v[lo] <= width) ++hi;
    if (hi - lo > count) {
      count = hi - lo;
      best = lo;
    }
  }
  return median(std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(best),
                                    v.begin() + static_cast<std::ptrdiff_t>(best + count)));
}

double mad(const std::vector<double>& v) {
  const double m = median(v);
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::fabs(x - m));
  return median(std::move(d));
}

double robust_sigma(const std::vector<double>& v) { return 1.4826 * mad(v); }

double sample_sigma(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double sum = 0, sum2 = 0;
  for (const double x : v) sum += x, sum2 += x * x;
  const double n = static_cast<double>(v.size());
  return std::sqrt(std::max(0.0, (sum2 - sum * sum / n) / (n - 1)));
}

double wrap_half(double x) { return x - std::floor(x + 0.5); }

double wrap_unit(double x) { return x - std::floor(x); }

double mid_phase(double a, double b) { return wrap_unit(a + 0.5 * wrap_half(b - a)); }

double circular_median_sectors(const std::vector<double>& sectors, double spt) {
  const double step = 1.0 / spt;
  std::vector<double> a;
  for (double x : sectors) a.push_back(x * step);
  double m = circular_median(a) / step;
  if (m > spt - 0.5) m -= spt;
  return m;
}

double circular_median(const std::vector<double>& angles) {
  if (angles.empty()) throw std::invalid_argument("circular median of an empty sample");
  double s = 0, c = 0;
  for (double a : angles) {
    s += std::sin(2 * std::numbers::pi * a);
    c += std::cos(2 * std::numbers::pi * a);
  }
  const double centre = std::atan2(s, c) / (2 * std::numbers::pi);
  std::vector<double> rel;
  rel.reserve(angles.size());
  for (double a : angles) rel.push_back(wrap_half(a - centre));
  return wrap_unit(centre + median(std::move(rel)));
}

double circular_mode(const std::vector<double>& angles, double width) {
  if (angles.empty()) throw std::invalid_argument("circular mode of an empty sample");
  const double centre = circular_median(angles);
  std::vector<double> rel;
  rel.reserve(angles.size());
  for (double a : angles) rel.push_back(wrap_half(a - centre));
  std::sort(rel.begin(), rel.end());
  // Windows may wrap: walk the sorted offsets twice round.
  const std::size_t n = rel.size();
  std::size_t best_i = 0, best_count = 0;
  for (std::size_t i = 0, j = 0; i < n; ++i) {
    if (j < i) j = i;
    auto at = [&](std::size_t k) { return k < n ? rel[k] : rel[k - n] + 1.0; };
    while (j + 1 < i + n && at(j + 1) - rel[i] <= width) ++j;
    if (j - i + 1 > best_count) {
      best_count = j - i + 1;
      best_i = i;
    }
  }
  std::vector<double> in;
  for (std::size_t k = best_i; k < best_i + best_count; ++k) in.push_back(k < n ? rel[k] : rel[k - n] + 1.0);
  return wrap_unit(centre + median(std::move(in)));
}

double circular_earliest(const std::vector<double>& angles, double width) {
  const double mode = circular_mode(angles, width);
  // The cluster's members lie within `width` of its median; on-time reads may lie up to
  // `width` before the cluster's own earliest.
  double first = 0.0;
  for (double a : angles) {
    const double r = wrap_half(a - mode);
    if (r >= -2.0 * width && r <= width) first = std::min(first, r);
  }
  return wrap_unit(mode + first);
}

double circular_concentration(const std::vector<double>& angles) {
  if (angles.empty()) return 0.0;
  double s = 0, c = 0;
  for (double a : angles) {
    s += std::sin(2 * std::numbers::pi * a);
    c += std::cos(2 * std::numbers::pi * a);
  }
  return std::hypot(s, c) / static_cast<double>(angles.size());
}

namespace {

LineFit fit_subset(const std::vector<double>& x, const std::vector<double>& y,
                   const std::vector<bool>& keep) {
  double n = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (keep[i]) {
      n += 1;
      sx += x[i];
      sy += y[i];
    }
  LineFit f;
  if (n < 1) return f;
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (keep[i]) {
      sxx += (x[i] - mx) * (x[i] - mx);
      sxy += (x[i] - mx) * (y[i] - my);
    }
  f.slope = sxx > 0 ? sxy / sxx : 0.0;
  f.intercept = my - f.slope * mx;
  double ss = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (keep[i]) {
      const double r = y[i] - f.intercept - f.slope * x[i];
      ss += r * r;
    }
  f.rms = std::sqrt(ss / n);
  f.kept = static_cast<std::size_t>(n);
  f.rejected = x.size() - f.kept;
  return f;
}

}  // namespace

LineFit least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("least squares needs at least two (x, y) points");
  return fit_subset(x, y, std::vector<bool>(x.size(), true));
}

LineFit robust_line(const std::vector<double>& x, const std::vector<double>& y, double k,
                    int rounds, double floor) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("a robust line fit needs at least two (x, y) points");
  std::vector<bool> keep(x.size(), true);
  LineFit f = fit_subset(x, y, keep);
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> res;
    for (std::size_t i = 0; i < x.size(); ++i) res.push_back(y[i] - f.intercept - f.slope * x[i]);
    const double limit = std::max(k * robust_sigma(res), floor);
    std::vector<bool> next(x.size());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      next[i] = std::fabs(res[i]) <= limit;
      kept += next[i];
    }
    if (kept < 2 || next == keep) break;
    keep = std::move(next);
    f = fit_subset(x, y, keep);
  }
  return f;
}

}  // namespace disksched::extract
