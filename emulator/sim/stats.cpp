#include "emulator/sim/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

namespace disksched {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// percentile_sorted() of `xs` without sorting it: the two order statistics it
// interpolates between, found by selection (xs is reordered). The same value, bit for
// bit, in O(n) instead of a sort's O(n log n).
double percentile_selected(std::vector<double>& xs, double q) {
  if (xs.empty()) return kNaN;
  const double pos = q * static_cast<double>(xs.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto lo_it = xs.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(xs.begin(), lo_it, xs.end());
  const double frac = pos - static_cast<double>(lo);
  // The next order statistic is the least of what selection left after lo.
  const double next = lo + 1 < xs.size() ? *std::min_element(lo_it + 1, xs.end()) : *lo_it;
  return *lo_it + frac * (next - *lo_it);
}

}  // namespace

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

double histogram_percentile(const std::vector<double>& xs, double q, std::size_t bins) {
  if (xs.empty() || bins == 0) return kNaN;
  const double hi = *std::max_element(xs.begin(), xs.end());
  if (!(hi > 0)) return hi;
  const double width = hi / static_cast<double>(bins);
  std::vector<std::size_t> count(bins, 0);
  for (double x : xs) {
    auto b = static_cast<std::size_t>(std::max(0.0, x) / width);
    count[std::min(b, bins - 1)]++;
  }
  const double target = q * static_cast<double>(xs.size());
  double cum = 0;
  for (std::size_t b = 0; b < bins; ++b) {
    const double next = cum + static_cast<double>(count[b]);
    if (next >= target && count[b] > 0) {
      const double frac = (target - cum) / static_cast<double>(count[b]);
      return (static_cast<double>(b) + frac) * width;
    }
    cum = next;
  }
  return hi;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
    throw std::invalid_argument(fmt::format("student_t_quantile: p={} df={} out of range", p, df));
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

Estimate replicate(const std::vector<double>& values, double confidence) {
  Estimate e;
  e.n = values.size();
  if (values.empty()) {
    e.mean = e.half_width = kNaN;
    return e;
  }
  double sum = 0;
  for (double v : values) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) {
    e.half_width = kNaN;
    return e;
  }
  double ss = 0;
  for (double v : values) ss += (v - e.mean) * (v - e.mean);
  const double s = std::sqrt(ss / static_cast<double>(e.n - 1));
  const double t = student_t_quantile(0.5 + confidence / 2.0, static_cast<double>(e.n - 1));
  e.half_width = t * s / std::sqrt(static_cast<double>(e.n));
  return e;
}

namespace {

// The one summary: `n` measured requests in seq order, `at(i)` the i-th one's sample.
template <typename At>
RunSummary summarize_with(const SimResult& r, std::size_t n_requests, At at) {
  RunSummary s;
  s.saturated = r.saturated;
  s.requests = n_requests;
  if (n_requests == 0) {
    s.mean_ms = s.std_ms = s.sq_cv = s.p95_ms = s.p95_hist_ms = s.p99_ms = s.max_ms = kNaN;
    return s;
  }
  std::vector<double> resp;
  resp.reserve(n_requests);
  double sum = 0, wait = 0, delay = 0, service = 0, qlen = 0, seek = 0, rot = 0, xfer = 0, ovh = 0, travel = 0;
  for (std::size_t i = 0; i < n_requests; ++i) {
    const MeasuredSample x = at(i);
    resp.push_back(x.response_ms);
    sum += x.response_ms;
    wait += x.wait_ms;
    delay += x.delay_ms;
    service += x.service_ms;
    qlen += x.queue_len;
    seek += x.seek_ms;
    rot += x.rotation_ms;
    xfer += x.transfer_ms;
    travel += x.travel_ms;
    ovh += x.overhead_ms;
  }
  const double n = static_cast<double>(n_requests);
  s.mean_ms = sum / n;
  double ss = 0;
  for (double v : resp) ss += (v - s.mean_ms) * (v - s.mean_ms);
  s.std_ms = n_requests > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  s.sq_cv = s.mean_ms > 0 ? (s.std_ms * s.std_ms) / (s.mean_ms * s.mean_ms) : 0.0;
  s.p95_hist_ms = histogram_percentile(resp, 0.95, 200);
  s.max_ms = *std::max_element(resp.begin(), resp.end());
  s.p95_ms = percentile_selected(resp, 0.95);
  s.p99_ms = percentile_selected(resp, 0.99);
  s.mean_wait_ms = wait / n;
  s.mean_delay_ms = delay / n;
  s.mean_service_ms = service / n;
  s.mean_queue_len = qlen / n;
  s.mean_seek_ms = seek / n;
  s.mean_rotation_ms = rot / n;
  s.mean_transfer_ms = xfer / n;
  s.mean_travel_ms = travel / n;
  s.mean_overhead_ms = ovh / n;
  const double window = r.window_end_ms - r.window_start_ms;
  s.throughput_per_s =
      window > 0 ? static_cast<double>(r.completions_in_window) * 1000.0 / window : kNaN;
  s.utilization = window > 0 ? r.busy_in_window_ms / window : kNaN;
  return s;
}

}  // namespace

RunSummary summarize(const SimResult& r) {
  return summarize_with(r, r.measured.size(), [&](std::size_t i) { return sample_of(r.measured[i]); });
}

RunSummary summarize(const SimResult& r, const std::vector<MeasuredSample>& measured) {
  return summarize_with(r, measured.size(), [&](std::size_t i) { return measured[i]; });
}

Replicated replicate(const std::vector<RunSummary>& runs) {
  Replicated out;
  out.reps = runs.size();
  auto est = [&](double RunSummary::*field) {
    std::vector<double> v;
    v.reserve(runs.size());
    for (const auto& r : runs) v.push_back(r.*field);
    return replicate(v);
  };
  for (const auto& r : runs) {
    out.requests += r.requests;
    out.saturated = out.saturated || r.saturated;
  }
  out.throughput_per_s = est(&RunSummary::throughput_per_s);
  out.mean_ms = est(&RunSummary::mean_ms);
  out.std_ms = est(&RunSummary::std_ms);
  out.sq_cv = est(&RunSummary::sq_cv);
  out.p95_ms = est(&RunSummary::p95_ms);
  out.p95_hist_ms = est(&RunSummary::p95_hist_ms);
  out.p99_ms = est(&RunSummary::p99_ms);
  out.max_ms = est(&RunSummary::max_ms);
  out.mean_wait_ms = est(&RunSummary::mean_wait_ms);
  out.mean_delay_ms = est(&RunSummary::mean_delay_ms);
  out.mean_service_ms = est(&RunSummary::mean_service_ms);
  out.mean_queue_len = est(&RunSummary::mean_queue_len);
  out.mean_seek_ms = est(&RunSummary::mean_seek_ms);
  out.mean_rotation_ms = est(&RunSummary::mean_rotation_ms);
  out.mean_transfer_ms = est(&RunSummary::mean_transfer_ms);
  out.mean_travel_ms = est(&RunSummary::mean_travel_ms);
  out.mean_overhead_ms = est(&RunSummary::mean_overhead_ms);
  out.utilization = est(&RunSummary::utilization);
  return out;
}

}  // namespace disksched
