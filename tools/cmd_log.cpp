// `disksched log summary|compare`: latency logs (the filter's sched-log=, replay --log)
// summarised, or several side by side, in a window of arrival times and in model time.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "daemon/filter/latency_log.hpp"
#include "tools/log_summary.hpp"
#include "tools/commands.hpp"

namespace disksched::cli {
namespace {

struct LogView {
  // Only requests arriving in [from, to): one value for every log, or one per log.
  std::vector<std::int64_t> from_ns, to_ns;
  double timescale = 1.0;                   // report model time: real / timescale
};

std::int64_t window_value(const std::vector<std::int64_t>& v, std::size_t i, std::size_t logs,
                          std::int64_t none, const char* option) {
  if (v.empty()) return none;
  if (v.size() == 1) return v[0];
  if (v.size() != logs)
    throw std::invalid_argument(fmt::format("{} has {} values for {} logs (give one, or one per log)",
                                            option, v.size(), logs));
  return v[i];
}

// Reads log `index` of `logs`, keeps its window and converts to model time.
std::vector<LogRow> read_view(const std::string& path, const LogView& v, std::size_t index = 0,
                              std::size_t logs = 1) {
  if (!(v.timescale > 0)) throw std::invalid_argument("--timescale must be > 0");
  const std::int64_t from = window_value(v.from_ns, index, logs, INT64_MIN, "--from-ns");
  const std::int64_t to = window_value(v.to_ns, index, logs, INT64_MAX, "--to-ns");
  std::vector<LogRow> rows;
  std::vector<std::string> notes;
  auto all = read_latency_log(path, &notes);
  for (const auto& n : notes) std::cerr << "disksched: note: " << n << "\n";
  for (auto& r : all) {
    if (r.arrive_ns < from || r.arrive_ns >= to) continue;
    if (v.timescale != 1.0) {
      const std::int64_t base = r.arrive_ns;
      auto scale = [&](std::int64_t t) {
        return base + static_cast<std::int64_t>(static_cast<double>(t - base) / v.timescale);
      };
      r.dispatch_ns = scale(r.dispatch_ns);
      r.complete_ns = scale(r.complete_ns);
      // Arrivals themselves spread over model time too (for throughput).
      const auto shifted = static_cast<std::int64_t>(static_cast<double>(base) / v.timescale);
      r.dispatch_ns += shifted - base;
      r.complete_ns += shifted - base;
      r.arrive_ns = shifted;
      if (r.predicted_us) *r.predicted_us /= v.timescale;
      if (r.actual_us) *r.actual_us /= v.timescale;
      if (r.sector_us) *r.sector_us /= v.timescale;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

void add_view_options(CLI::App* c, LogView& v) {
  c->add_option("--from-ns", v.from_ns,
                "only requests arriving at or after this CLOCK_MONOTONIC time (ns); "
                "comma-separated: one per log")
      ->delimiter(',');
  c->add_option("--to-ns", v.to_ns, "only requests arriving before this time (ns)")
      ->delimiter(',');
  c->add_option("--timescale", v.timescale,
                "the emulator's timescale: report model time (real time / timescale)")
      ->capture_default_str();
}

void run_log_summary(const std::string& path, const LogView& view, bool json) {
  const LogSummary s = summarize_log(read_view(path, view));
  if (json)
    std::cout << summary_to_json(s).dump(2) << "\n";
  else
    std::cout << summary_to_text(s);
}

// Latency summaries side by side, one column per log.
void run_log_compare(const std::vector<std::string>& paths, std::vector<std::string> labels,
                     const LogView& view, bool json) {
  if (!labels.empty() && labels.size() != paths.size())
    throw std::invalid_argument(fmt::format("--labels has {} names for {} logs", labels.size(),
                                            paths.size()));
  if (labels.empty()) labels = paths;
  std::vector<LogSummary> s;
  for (std::size_t i = 0; i < paths.size(); ++i)
    s.push_back(summarize_log(read_view(paths[i], view, i, paths.size())));
  if (json) {
    nlohmann::json j = nlohmann::json::object();
    for (std::size_t i = 0; i < s.size(); ++i) j[labels[i]] = summary_to_json(s[i]);
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::string out = fmt::format("{:<28}", "");
  for (const auto& l : labels) out += fmt::format(" {:>16}", l.substr(0, 16));
  out += "\n";
  auto row = [&](const std::string& name, auto get) {
    out += fmt::format("{:<28}", name);
    for (const auto& x : s) out += fmt::format(" {:>16}", get(x));
    out += "\n";
  };
  auto f3 = [](double v) { return fmt::format("{:.3f}", v); };
  row("requests", [](const LogSummary& x) { return std::to_string(x.requests); });
  row("errors", [](const LogSummary& x) { return std::to_string(x.errors); });
  row("throughput (req/s)", [](const LogSummary& x) { return fmt::format("{:.1f}", x.throughput_per_s); });
  row("mean queue length", [](const LogSummary& x) {
    return x.mean_queue_len ? fmt::format("{:.2f}", *x.mean_queue_len) : std::string("-");
  });
  row("mean service (ms)", [&](const LogSummary& x) { return f3(x.mean_service_ms); });
  row("latency mean (ms)", [&](const LogSummary& x) { return f3(x.latency.mean_ms); });
  row("latency p50 (ms)", [&](const LogSummary& x) { return f3(x.latency.p50_ms); });
  row("latency p95 (ms)", [&](const LogSummary& x) { return f3(x.latency.p95_ms); });
  row("latency p99 (ms)", [&](const LogSummary& x) { return f3(x.latency.p99_ms); });
  row("latency max (ms)", [&](const LogSummary& x) { return f3(x.latency.max_ms); });
  std::vector<std::string> ops;
  for (const auto& x : s)
    for (const auto& [op, st] : x.by_op)
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  for (const auto& op : ops) {
    row(op + " mean / p95 (ms)", [&](const LogSummary& x) {
      auto it = x.by_op.find(op);
      return it == x.by_op.end() ? std::string("-")
                                 : fmt::format("{:.2f} / {:.2f}", it->second.mean_ms, it->second.p95_ms);
    });
  }
  row("predicted within 1 sector", [](const LogSummary& x) {
    return x.prediction.within_sector ? fmt::format("{:.1f}%", 100 * *x.prediction.within_sector)
                                      : std::string("-");
  });
  std::cout << out;
}

}  // namespace

void add_log_commands(CLI::App& app) {
  auto* log = app.add_subcommand("log", "latency logs (sched-log=, replay --log)");
  log->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto log_json = std::make_shared<bool>(false);
  auto* summary = log->add_subcommand(
      "summary", "counts, mean and p50/p95/p99/max latency per op and class, queue length, "
                 "prediction error");
  summary->add_option("file", *file, "latency log")->required()->check(CLI::ExistingFile);
  summary->add_flag("--json", *log_json, "print JSON");
  auto view = std::make_shared<LogView>();
  add_view_options(summary, *view);
  summary->callback([file, log_json, view] { run_log_summary(*file, *view, *log_json); });

  auto files = std::make_shared<std::vector<std::string>>();
  auto labels = std::make_shared<std::vector<std::string>>();
  auto cmp_json = std::make_shared<bool>(false);
  auto* compare = log->add_subcommand("compare", "latency summaries of several logs side by side");
  compare->add_option("files", *files, "latency logs")->required()->check(CLI::ExistingFile);
  compare->add_option("--labels", *labels, "column names, one per log")->delimiter(',');
  compare->add_flag("--json", *cmp_json, "print JSON keyed by label");
  add_view_options(compare, *view);
  compare->callback(
      [files, labels, cmp_json, view] { run_log_compare(*files, *labels, *view, *cmp_json); });
}

}  // namespace disksched::cli
