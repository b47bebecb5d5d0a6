// The latency log (sched-log=): one CSV line per request, with a header, written by a
// background thread so the dispatch path only appends to a buffer.
//
// Columns: id, op, offset, length, flags (fua|may_trim|fast_zero), class, arrive_ns,
// dispatch_ns, issue_ns, complete_ns (CLOCK_MONOTONIC; dispatch = the scheduler sent it
// to the device, issue = the worker called the plugin for it, after any stops the
// scheduler asked for first, such as SCAN's trip to the edge), predicted_us and actual_us
// (service time dispatch -> completion; predicted empty when unknown), sector_us (one
// sector time of the geometry, 0 without one: the tolerance of a right prediction),
// queue_len (requests the scheduler chose from), scheduler (its spec, quoted when it
// holds commas), error (errno name, empty on success).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/filter/class_map.hpp"
#include "predictor/device_model.hpp"

namespace disksched {

struct LatencyRecord {
  std::uint64_t id = 0;
  Op op = Op::Read;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  std::uint32_t flags = 0;
  ClassAssignment cls;
  std::int64_t arrive_ns = 0, dispatch_ns = 0, issue_ns = 0, complete_ns = 0;
  double predicted_us = -1.0;   // < 0: no prediction
  double sector_us = 0.0;
  std::uint32_t queue_len = 0;
  std::shared_ptr<const std::string> scheduler;
  int error = 0;                // errno, 0 on success
};

// The header line (without newline) and one record formatted as a CSV line.
const char* latency_log_header();
std::string format_latency_record(const LatencyRecord& r);
std::string format_flags(std::uint32_t flags);

class LatencyLogWriter {
 public:
  // Creates (truncates) `path` and writes the header. Throws std::runtime_error naming
  // the path and the reason.
  explicit LatencyLogWriter(const std::string& path);
  ~LatencyLogWriter();
  LatencyLogWriter(const LatencyLogWriter&) = delete;
  LatencyLogWriter& operator=(const LatencyLogWriter&) = delete;

  void start();                  // the writer thread (nbdkit: .after_fork)
  void push(LatencyRecord r);    // cheap: appends to a buffer
  void stop();                   // writes everything buffered, joins, closes
  std::uint64_t written() const;

 private:
  void loop();
  void write_batch(std::vector<LatencyRecord>& batch);

  std::string path_;
  std::FILE* file_ = nullptr;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<LatencyRecord> buffer_;
  bool stopping_ = false;
  std::thread thread_;
  std::uint64_t written_ = 0;
};

// One parsed line of a latency log (what the summary needs).
struct LogRow {
  std::string op;
  std::string cls;
  std::int64_t arrive_ns = 0, dispatch_ns = 0, complete_ns = 0;
  std::optional<double> predicted_us, actual_us, sector_us, queue_len;
  std::string scheduler;
  std::string error;
};

// Reads a latency log (columns found by the header's names; extra columns ignored).
// Throws std::runtime_error naming the file, line and field.
std::vector<LogRow> read_latency_log(const std::string& path);

}  // namespace disksched
