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

// DiskSim's access-time histogram: edges in whole microseconds, each step 1 % longer.
constexpr int kHistogramEdges = 1750;

const std::vector<long long>& histogram_edges_us() {
  static const std::vector<long long> edges = [] {
    std::vector<long long> e(kHistogramEdges);
    long long at = 0;
    for (auto& x : e) {
      x = at;
      at += 1 + at / 100;
    }
    return e;
  }();
  return edges;
}

// The CDF at each edge, as DiskSim prints it: the fraction of samples whose whole
// microseconds lie below the edge, to 6 decimals; it ends at the first edge reaching 1.
struct EdgeCdf {
  std::vector<double> x_ms, y;
};

EdgeCdf edge_cdf(const std::vector<double>& ms, const char* which) {
  std::vector<double> xs = ms;
  sort_checked(xs, which);
  const auto& edges = histogram_edges_us();
  std::vector<std::size_t> count(edges.size(), 0);
  for (double v : xs) {
    // Whole microseconds, truncated: long double so that 0.487 ms is 486 us as DiskSim's
    // x87 arithmetic has it (0.487 is 0.48699999... in binary).
    const long double us = std::floor(static_cast<long double>(v) * 1000.0L);
    if (us < 0) continue;  // below the first edge: DiskSim counts it nowhere
    const auto it = std::upper_bound(edges.begin(), edges.end(), static_cast<long long>(us));
    count[std::min<std::size_t>(static_cast<std::size_t>(it - edges.begin()), edges.size() - 1)]++;
  }
  EdgeCdf c;
  double run = 0.0;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    run += static_cast<double>(count[k]) / static_cast<double>(xs.size());
    c.x_ms.push_back(static_cast<double>(edges[k]) / 1000.0);
    c.y.push_back(std::round(run * 1e6) / 1e6);
    if (c.y.back() >= 1.0) break;
  }
  if (c.y.back() < 1.0) c.y.back() = 1.0;  // every sample is in some bucket
  return c;
}

// The inverse of the joined CDF at p, from index i on (p only grows).
double edge_quantile(const EdgeCdf& c, double p, std::size_t& i) {
  while (i + 1 < c.y.size() && c.y[i] < p) ++i;
  if (i == 0) return c.x_ms[0];
  const double f = (p - c.y[i - 1]) / (c.y[i] - c.y[i - 1]);
  return c.x_ms[i - 1] + f * (c.x_ms[i] - c.x_ms[i - 1]);
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

double demerit_histogram(const std::vector<double>& a_ms, const std::vector<double>& b_ms) {
  const EdgeCdf a = edge_cdf(a_ms, "first");
  const EdgeCdf b = edge_cdf(b_ms, "second");
  double sum = 0.0;
  int n = 0;
  std::size_t ia = 0, ib = 0;
  // p accumulates as DiskSim's loop has it (0.0001 added 10000 times stays below 1).
  for (double p = 0.0001; p <= 1.0; p += 0.0001) {
    const double d = edge_quantile(a, p, ia) - edge_quantile(b, p, ib);
    sum += d * d;
    ++n;
  }
  return std::sqrt(sum / n);
}

}  // namespace disksched
