#include "tools/log_summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace disksched {
namespace {

double rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(k, 1, sorted.size()) - 1];
}

nlohmann::json stats_json(const LatencyStats& s) {
  return {{"count", s.count}, {"mean_ms", s.mean_ms}, {"p50_ms", s.p50_ms},
          {"p95_ms", s.p95_ms}, {"p99_ms", s.p99_ms}, {"max_ms", s.max_ms}};
}

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

LatencyStats latency_stats(std::vector<double>& ms) {
  LatencyStats s;
  s.count = ms.size();
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.mean_ms = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  s.p50_ms = rank(ms, 0.50);
  s.p95_ms = rank(ms, 0.95);
  s.p99_ms = rank(ms, 0.99);
  s.max_ms = ms.back();
  return s;
}

LogSummary summarize_log(const std::vector<LogRow>& rows) {
  LogSummary s;
  s.requests = rows.size();
  std::vector<double> all;
  std::map<std::string, std::vector<double>> by_op, by_class;
  double service_sum = 0, qlen_sum = 0;
  std::uint64_t qlen_n = 0;
  std::vector<double> abs_err;
  double err_sum = 0;
  std::uint64_t with_sector = 0, w1 = 0, w2 = 0, w10 = 0;
  std::int64_t first = 0, last = 0;
  for (const auto& r : rows) {
    if (&r == &rows.front() || r.arrive_ns < first) first = r.arrive_ns;
    if (&r == &rows.front() || r.complete_ns > last) last = r.complete_ns;
    if (std::find(s.schedulers.begin(), s.schedulers.end(), r.scheduler) == s.schedulers.end() &&
        !r.scheduler.empty())
      s.schedulers.push_back(r.scheduler);
    if (r.queue_len) {
      qlen_sum += *r.queue_len;
      ++qlen_n;
    }
    if (!r.error.empty()) {
      ++s.errors;
      continue;
    }
    const double ms = static_cast<double>(r.complete_ns - r.arrive_ns) / 1e6;
    all.push_back(ms);
    by_op[r.op].push_back(ms);
    if (!r.cls.empty()) by_class[r.cls].push_back(ms);
    const double actual_us =
        r.actual_us.value_or(static_cast<double>(r.complete_ns - r.dispatch_ns) / 1e3);
    service_sum += actual_us / 1e3;
    if (r.predicted_us) {
      const double e = *r.predicted_us - actual_us;
      err_sum += e;
      abs_err.push_back(std::abs(e));
      if (r.sector_us && *r.sector_us > 0) {
        ++with_sector;
        w1 += std::abs(e) <= *r.sector_us;
        w2 += std::abs(e) <= 2 * *r.sector_us;
        w10 += std::abs(e) <= 10 * *r.sector_us;
      }
    }
  }
  const std::uint64_t ok = all.size();
  s.latency = latency_stats(all);
  for (auto& [op, v] : by_op) s.by_op[op] = latency_stats(v);
  for (auto& [c, v] : by_class) s.by_class[c] = latency_stats(v);
  if (ok > 0) s.mean_service_ms = service_sum / static_cast<double>(ok);
  if (qlen_n > 0) s.mean_queue_len = qlen_sum / static_cast<double>(qlen_n);
  if (!rows.empty()) {
    s.duration_s = static_cast<double>(last - first) / 1e9;
    if (s.duration_s > 0) s.throughput_per_s = static_cast<double>(ok) / s.duration_s;
  }
  auto& p = s.prediction;
  p.count = abs_err.size();
  if (!abs_err.empty()) {
    p.mean_error_us = err_sum / static_cast<double>(abs_err.size());
    std::sort(abs_err.begin(), abs_err.end());
    p.p50_abs_us = rank(abs_err, 0.50);
    p.p95_abs_us = rank(abs_err, 0.95);
    p.p99_abs_us = rank(abs_err, 0.99);
    p.max_abs_us = abs_err.back();
  }
  if (with_sector > 0) {
    const auto n = static_cast<double>(with_sector);
    p.within_sector = w1 / n;
    p.within_2_sectors = w2 / n;
    p.within_10_sectors = w10 / n;
  }
  return s;
}

nlohmann::json summary_to_json(const LogSummary& s) {
  nlohmann::json j;
  j["requests"] = s.requests;
  j["errors"] = s.errors;
  j["duration_s"] = s.duration_s;
  j["throughput_per_s"] = s.throughput_per_s;
  j["mean_ms"] = s.latency.mean_ms;
  j["p50_ms"] = s.latency.p50_ms;
  j["p95_ms"] = s.latency.p95_ms;
  j["p99_ms"] = s.latency.p99_ms;
  j["max_ms"] = s.latency.max_ms;
  j["mean_service_ms"] = s.mean_service_ms;
  j["mean_queue_len"] = opt(s.mean_queue_len);
  j["prediction_within_sector"] = opt(s.prediction.within_sector);
  const auto& p = s.prediction;
  j["prediction"] = {{"count", p.count},
                     {"mean_error_us", p.mean_error_us},
                     {"p50_abs_error_us", p.p50_abs_us},
                     {"p95_abs_error_us", p.p95_abs_us},
                     {"p99_abs_error_us", p.p99_abs_us},
                     {"max_abs_error_us", p.max_abs_us},
                     {"within_sector", opt(p.within_sector)},
                     {"within_2_sectors", opt(p.within_2_sectors)},
                     {"within_10_sectors", opt(p.within_10_sectors)}};
  j["by_op"] = nlohmann::json::object();
  for (const auto& [k, v] : s.by_op) j["by_op"][k] = stats_json(v);
  j["by_class"] = nlohmann::json::object();
  for (const auto& [k, v] : s.by_class) j["by_class"][k] = stats_json(v);
  j["schedulers"] = s.schedulers;
  return j;
}

std::string summary_to_text(const LogSummary& s, const SummaryLabels& labels) {
  std::string out;
  out += fmt::format("requests {}  errors {}  over {:.2f} s  ({:.1f} req/s)\n", s.requests,
                     s.errors, s.duration_s, s.throughput_per_s);
  if (!s.schedulers.empty()) {
    std::string names;
    for (const auto& n : s.schedulers) names += (names.empty() ? "" : ", ") + n;
    out += fmt::format("scheduler {}\n", names);
  }
  out += fmt::format("{} {}   {} {:.3f} ms\n", labels.queue,
                     s.mean_queue_len ? fmt::format("{:.2f}", *s.mean_queue_len) : "-",
                     labels.service, s.mean_service_ms);
  out += fmt::format("\n{:<22} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "latency (ms)",
                     "count", "mean", "p50", "p95", "p99", "max");
  auto row = [&](const std::string& name, const LatencyStats& l) {
    out += fmt::format("{:<22} {:>8} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f}\n", name,
                       l.count, l.mean_ms, l.p50_ms, l.p95_ms, l.p99_ms, l.max_ms);
  };
  row("all", s.latency);
  for (const auto& [k, v] : s.by_op) row("op " + k, v);
  for (const auto& [k, v] : s.by_class) row("class " + k, v);
  const auto& p = s.prediction;
  if (p.count > 0) {
    out += fmt::format(
        "\nprediction error (us, |predicted - actual|) over {} requests: mean signed {:+.1f}, "
        "p50 {:.1f}, p95 {:.1f}, p99 {:.1f}, max {:.1f}\n",
        p.count, p.mean_error_us, p.p50_abs_us, p.p95_abs_us, p.p99_abs_us, p.max_abs_us);
    if (p.within_sector)
      out += fmt::format("within 1 sector {:.1f}%, 2 sectors {:.1f}%, 10 sectors {:.1f}%\n",
                         100 * *p.within_sector, 100 * *p.within_2_sectors,
                         100 * *p.within_10_sectors);
  }
  return out;
}

}  // namespace disksched
