// One filter instance's metrics in the Prometheus text exposition format (0.0.4):
// request counters and latency histograms per operation and class, observed at each
// completion, plus gauges and counters read from the dispatcher's snapshot at render
// time. Every series carries a `disk` label naming the instance. Kept free of nbdkit
// so it is unit-tested.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "daemon/filter/dispatcher.hpp"
#include "daemon/filter/latency_log.hpp"
#include "schedulers/request.hpp"

namespace disksched {

class Metrics {
 public:
  // Bucket upper bounds in seconds, shared by every latency histogram (+Inf implied).
  static constexpr std::array<double, 16> kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
      0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,   10.0};
  // Queue length at dispatch: bucket upper bounds (requests).
  static constexpr std::array<double, 9> kQueueBuckets = {0, 1, 2, 4, 8, 16, 32, 64, 128};

  explicit Metrics(std::string disk);

  // One completed request: its operation, class, result, response (arrival ->
  // completion) and service (dispatch -> completion) times, queue length at dispatch, and
  // the prediction's error when it has one.
  void observe(const LiveRecord& r);

  // Everything, as exposition text. `snap` is null before a client opened the device;
  // `log`: the latency log's counts (null without a log).
  std::string render(const Dispatcher::Snapshot* snap, const LatencyLogWriter::Status* log) const;

  const std::string& disk() const { return disk_; }

 private:
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size()> counts{};  // per bucket, not cumulative
    std::uint64_t count = 0;
    double sum = 0.0;
    void add(double v, const double* bounds, std::size_t n);
  };
  static constexpr std::size_t kOps = 5;      // read, write, flush, trim, zero
  static constexpr std::size_t kClasses = 3;  // critical, limited, noncritical
  struct PerOpClass {
    std::uint64_t requests = 0, errors = 0;
    Histogram response, service;
  };

  std::string disk_;
  mutable std::mutex mu_;
  std::array<std::array<PerOpClass, kClasses>, kOps> by_{};
  Histogram prediction_error_;
  Histogram queue_len_;
};

// A label value escaped for the exposition format (backslash, quote, newline).
std::string prometheus_label_value(const std::string& v);

}  // namespace disksched
