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
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/filter/live_record.hpp"

namespace disksched {

// The header line (without newline) and one request's line (without newline), formatted
// from its record.
const char* latency_log_header();
std::string format_latency_record(const LiveRecord& r);
std::string format_flags(std::uint32_t flags);

// Writes the log from a background thread. The buffer between the request path and the
// thread is bounded: when the file cannot keep up (a stalled file system) further
// records are dropped and counted, never queued without limit. Write errors (a full file
// system) are counted, reported once, and leave no cut line behind. The file is opened
// with O_APPEND, so after logrotate's copytruncate the next lines go to the start of the
// emptied file (with a new header), and `reopen` follows a file that was moved away.
class LatencyLogWriter {
 public:
  struct Options {
    bool append = true;             // false: an existing latency log is emptied first
    std::size_t capacity = 65536;   // records buffered at most
    // true: a record that finds the buffer full is dropped and counted (the daemon: the
    // request path never waits for the file); false: the pusher writes the buffer out
    // itself (a CLI writing a log in one go)
    bool drop_when_full = true;
    // Told once about a write error and once about the first dropped record (and about
    // an earlier run's cut last line removed on open). Default: stderr.
    std::function<void(const std::string&)> report;
  };

  struct Status {
    std::string path;
    std::uint64_t written = 0;        // lines written since start
    std::uint64_t dropped = 0;        // records lost: buffer full or write failed
    std::uint64_t write_errors = 0;   // failed writes (each loses its batch)
    std::string last_error;           // empty when none
  };

  // Opens `path` without blocking (a FIFO with no reader cannot hang start-up). Only a
  // regular file is accepted: a new or empty one gets the header, an existing latency
  // log (its first line is the header) is appended to, anything else is refused, so a
  // disk image given by mistake is never truncated. Throws std::runtime_error naming
  // the path, what is wrong and what to give instead.
  explicit LatencyLogWriter(const std::string& path);
  LatencyLogWriter(const std::string& path, Options options);
  ~LatencyLogWriter();
  LatencyLogWriter(const LatencyLogWriter&) = delete;
  LatencyLogWriter& operator=(const LatencyLogWriter&) = delete;

  void start();                  // the writer thread (nbdkit: .after_fork)
  // Cheap: appends to the buffer; see drop_when_full for a full one.
  void push(LiveRecord r);
  void flush();                  // writes what is buffered now, from the caller's thread
  void stop();                   // writes everything buffered, joins, closes
  // Opens the path again (logrotate moved the file away: the next lines go to a new
  // file; what was buffered goes to the old one first), with the checks of the
  // constructor; on failure the old file stays in use and the error is thrown. Clears
  // the reported-once state.
  void reopen();
  Status status() const;
  std::uint64_t written() const { return status().written; }

 private:
  void loop();
  void write_batch(std::vector<LiveRecord>& batch);
  void report_once(bool& reported, const std::string& message);

  std::string path_;
  Options options_;
  mutable std::mutex mu_;        // the buffer, the flags, the counters
  std::condition_variable cv_;
  std::vector<LiveRecord> buffer_;
  bool stopping_ = false;
  std::thread thread_;
  std::uint64_t written_ = 0, dropped_ = 0, write_errors_ = 0;
  std::string last_error_;
  bool reported_error_ = false, reported_drop_ = false;
  std::mutex io_mu_;             // the file descriptor; held while a batch is written
  int fd_ = -1;
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
// Throws std::runtime_error naming the file, line and field. A last line that has no
// newline and does not parse (the writer was cut off) is skipped, with a note in `notes`.
std::vector<LogRow> read_latency_log(const std::string& path,
                                     std::vector<std::string>* notes = nullptr);

}  // namespace disksched
