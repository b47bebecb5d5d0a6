// `disksched log summary`: what a latency log says. Latency is arrival -> completion of
// the requests that succeeded; percentiles are nearest-rank.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/filter/latency_log.hpp"

namespace disksched {

struct LatencyStats {
  std::uint64_t count = 0;
  double mean_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0, max_ms = 0;
};

// Nearest-rank statistics of `ms` (sorted in place).
LatencyStats latency_stats(std::vector<double>& ms);

struct PredictionSummary {
  std::uint64_t count = 0;          // requests with a prediction
  double mean_error_us = 0;         // predicted - actual, signed
  double p50_abs_us = 0, p95_abs_us = 0, p99_abs_us = 0, max_abs_us = 0;
  // Fraction predicted within 1, 2 and 10 sector times (requests with a sector time).
  std::optional<double> within_sector, within_2_sectors, within_10_sectors;
};

struct LogSummary {
  std::uint64_t requests = 0;       // lines
  std::uint64_t errors = 0;
  double duration_s = 0;            // first arrival -> last completion
  double throughput_per_s = 0;      // successful requests / duration
  LatencyStats latency;             // all ops and classes
  double mean_service_ms = 0;       // dispatch -> completion
  std::optional<double> mean_queue_len;
  std::map<std::string, LatencyStats> by_op, by_class;
  PredictionSummary prediction;
  std::vector<std::string> schedulers;   // in order of first appearance
};

LogSummary summarize_log(const std::vector<LogRow>& rows);
// Keys: requests, errors, duration_s, throughput_per_s, mean_ms, p50_ms, p95_ms, p99_ms,
// max_ms, mean_service_ms, mean_queue_len, prediction_within_sector, prediction (object),
// by_op, by_class, schedulers. Absent values are null.
nlohmann::json summary_to_json(const LogSummary& s);
// The filter's log measures the device (dispatch -> completion); a client such as
// `replay` measures from its own issue, queueing in the server included, and says so
// with its own labels.
struct SummaryLabels {
  std::string_view queue = "mean queue length at dispatch";
  std::string_view service = "mean service";
};
std::string summary_to_text(const LogSummary& s, const SummaryLabels& labels = {});

}  // namespace disksched
