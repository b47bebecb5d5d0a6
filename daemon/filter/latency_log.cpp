#include "daemon/filter/latency_log.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/csv.hpp"

#include "schedulers/request.hpp"

namespace disksched {
namespace {

const char* errno_name(int e) {
  const char* n = strerrorname_np(e);
  return n != nullptr ? n : "EUNKNOWN";
}

}  // namespace

const char* latency_log_header() {
  return "id,op,offset,length,flags,class,arrive_ns,dispatch_ns,issue_ns,complete_ns,"
         "predicted_us,actual_us,sector_us,queue_len,scheduler,error";
}

std::string format_flags(std::uint32_t flags) {
  std::string s;
  auto add = [&](std::uint32_t bit, const char* name) {
    if ((flags & bit) == 0) return;
    if (!s.empty()) s += '|';
    s += name;
  };
  add(kFlagFua, "fua");
  add(kFlagMayTrim, "may_trim");
  add(kFlagFastZero, "fast_zero");
  add(kFlagReqOne, "req_one");
  return s;
}

std::string format_latency_record(const LiveRecord& r) {
  const double actual_us = static_cast<double>(r.complete_ns - r.dispatch_ns) / 1e3;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{},{},{}", r.id(),
                     op_name(r.core.op), r.core.offset, r.core.length, format_flags(r.core.flags),
                     format_class(r.cls()), r.arrive_ns, r.dispatch_ns, r.issue_ns, r.complete_ns,
                     r.predicted ? fmt::format("{:.3f}", r.predicted_us()) : std::string(),
                     actual_us, r.sector_us, r.core.queue_len,
                     r.scheduler ? csv_field(*r.scheduler) : std::string(),
                     r.error != 0 ? errno_name(r.error) : "");
}

namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  return "not a regular file";
}

std::runtime_error not_regular(const std::string& path, mode_t m) {
  return std::runtime_error(fmt::format(
      "'{}' is {}: the latency log must be a regular file (a reader that stops would hold "
      "up the server, and a device or image would be overwritten); give a file name",
      path, kind_of(m)));
}

bool write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Opens a latency log for appending; see the constructor. `note` hears about an earlier
// run's cut last line being removed.
int open_latency_log(const std::string& path, bool append,
                     const std::function<void(const std::string&)>& note) {
  struct stat st{};
  // Looked at before opening: opening a FIFO or a device can block or act.
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) throw not_regular(path, st.st_mode);
  const int fd =
      open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  try {
    if (fstat(fd, &st) != 0)
      throw std::runtime_error(fmt::format("'{}': {}", path, std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw not_regular(path, st.st_mode);
    fcntl(fd, F_SETFL, O_APPEND);  // blocking again: a regular file, written by our thread
    const std::string header = std::string(latency_log_header()) + "\n";
    bool needs_header = st.st_size == 0;
    if (st.st_size > 0) {
      std::string first(header.size(), '\0');
      const ssize_t n = pread(fd, first.data(), first.size(), 0);
      if (n != static_cast<ssize_t>(header.size()) || first != header)
        throw std::runtime_error(fmt::format(
            "'{}' exists and is not a disksched latency log (its first line is not the log's "
            "header), and a latency log is never written over another file: give a new file "
            "name, or remove this file",
            path));
      if (!append) {
        if (ftruncate(fd, 0) != 0)
          throw std::runtime_error(fmt::format("cannot empty '{}': {}", path, std::strerror(errno)));
        needs_header = true;
      } else {
        // A run that died mid-line left a cut last line; appended to, it would sit in the
        // middle of the log where the reader rejects it.
        const off_t size = st.st_size;
        const off_t from = std::max<off_t>(0, size - 65536);
        std::string tail(static_cast<std::size_t>(size - from), '\0');
        if (pread(fd, tail.data(), tail.size(), from) == static_cast<ssize_t>(tail.size()) &&
            tail.back() != '\n') {
          const auto nl = tail.rfind('\n');
          const off_t keep = nl == std::string::npos ? static_cast<off_t>(header.size())
                                                     : from + static_cast<off_t>(nl) + 1;
          if (ftruncate(fd, keep) == 0 && note)
            note(fmt::format("removed a cut last line ({} bytes) that an earlier run left in '{}'",
                             size - keep, path));
        }
      }
    }
    if (needs_header && !write_all(fd, header))
      throw std::runtime_error(fmt::format("cannot write to '{}': {}", path, std::strerror(errno)));
  } catch (...) {
    close(fd);
    throw;
  }
  return fd;
}

void report_to_stderr(const std::string& m) {
  std::fprintf(stderr, "disksched: latency log: %s\n", m.c_str());
}

}  // namespace

LatencyLogWriter::LatencyLogWriter(const std::string& path) : LatencyLogWriter(path, Options{}) {}

LatencyLogWriter::LatencyLogWriter(const std::string& path, Options options)
    : path_(path), options_(std::move(options)) {
  if (!options_.report) options_.report = report_to_stderr;
  if (options_.capacity == 0) options_.capacity = 1;
  fd_ = open_latency_log(path_, options_.append, options_.report);
  buffer_.reserve(std::min<std::size_t>(1024, options_.capacity));
}

LatencyLogWriter::~LatencyLogWriter() { stop(); }

void LatencyLogWriter::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || fd_ < 0) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void LatencyLogWriter::report_once(bool& reported, const std::string& message) {
  {
    std::lock_guard lock(mu_);
    if (reported) return;
    reported = true;
  }
  options_.report(message);
}

void LatencyLogWriter::push(LiveRecord r) {
  std::unique_lock lock(mu_);
  if (buffer_.size() >= options_.capacity) {
    if (!options_.drop_when_full) {
      std::vector<LiveRecord> batch;
      batch.swap(buffer_);
      lock.unlock();
      write_batch(batch);
      lock.lock();
    } else {
      ++dropped_;
      lock.unlock();
      report_once(reported_drop_,
                  fmt::format("'{}': the writer cannot keep up ({} records buffered); further "
                              "records are dropped and counted (log_dropped in `disksched ctl "
                              "SOCKET show`); reported once",
                              path_, options_.capacity));
      return;
    }
  }
  buffer_.push_back(std::move(r));
  if (buffer_.size() == 512) cv_.notify_one();
}

void LatencyLogWriter::write_batch(std::vector<LiveRecord>& batch) {
  if (batch.empty()) return;
  std::string text;
  text.reserve(batch.size() * 128);
  for (const auto& r : batch) {
    text += format_latency_record(r);
    text += '\n';
  }
  const std::uint64_t n = batch.size();
  batch.clear();
  std::unique_lock io(io_mu_);
  if (fd_ < 0) {
    std::lock_guard lock(mu_);
    dropped_ += n;
    return;
  }
  struct stat st{};
  const bool have_size = fstat(fd_, &st) == 0;
  // Emptied under us (logrotate's copytruncate): the next reader needs the header.
  if (have_size && st.st_size == 0) text.insert(0, std::string(latency_log_header()) + "\n");
  if (write_all(fd_, text)) {
    std::lock_guard lock(mu_);
    written_ += n;
    return;
  }
  const std::string why = std::strerror(errno);
  // Take back what part of the batch did land, so no cut line is left for the next
  // batch to follow (O_APPEND: the file ends where the batch began).
  if (have_size && ftruncate(fd_, st.st_size) != 0) {
    // The cut part stays; the reader skips a cut last line and says so.
  }
  io.unlock();
  {
    std::lock_guard lock(mu_);
    dropped_ += n;
    ++write_errors_;
    last_error_ = why;
  }
  report_once(reported_error_,
              fmt::format("'{}': write failed: {}; {} lines lost; later failures are counted "
                          "(log_write_errors, log_dropped in `disksched ctl SOCKET show`) but "
                          "not reported again",
                          path_, why, n));
}

void LatencyLogWriter::loop() {
  std::vector<LiveRecord> batch;
  batch.reserve(1024);
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait_for(lock, std::chrono::milliseconds(200),
                 [&] { return stopping_ || buffer_.size() >= 512; });
    batch.swap(buffer_);
    const bool done = stopping_;
    lock.unlock();
    write_batch(batch);
    lock.lock();
    if (done && buffer_.empty()) return;
  }
}

void LatencyLogWriter::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  flush();  // whatever was pushed without a running thread (or after it left)
  std::lock_guard io(io_mu_);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void LatencyLogWriter::flush() {
  std::vector<LiveRecord> rest;
  {
    std::lock_guard lock(mu_);
    rest.swap(buffer_);
  }
  write_batch(rest);
}

void LatencyLogWriter::reopen() {
  const int fd = open_latency_log(path_, true, options_.report);
  flush();  // what completed before the reopen belongs in the old file
  {
    std::lock_guard io(io_mu_);
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  std::lock_guard lock(mu_);
  reported_error_ = reported_drop_ = false;
  last_error_.clear();
}

LatencyLogWriter::Status LatencyLogWriter::status() const {
  std::lock_guard lock(mu_);
  return {path_, written_, dropped_, write_errors_, last_error_};
}

std::vector<LogRow> read_latency_log(const std::string& path, std::vector<std::string>* notes) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::string line;
  if (!std::getline(in, line))
    throw std::runtime_error(fmt::format("{}: empty file, expected a latency log header", path));
  std::map<std::string, std::size_t> col;
  {
    auto names = csv_fields(line);
    for (std::size_t i = 0; i < names.size(); ++i) col[names[i]] = i;
  }
  for (const char* required : {"op", "arrive_ns", "dispatch_ns", "complete_ns"})
    if (col.count(required) == 0)
      throw std::runtime_error(fmt::format(
          "{}:1: header has no '{}' column; is this a disksched latency log?", path, required));
  auto index = [&](const char* name) -> std::optional<std::size_t> {
    auto it = col.find(name);
    if (it == col.end()) return std::nullopt;
    return it->second;
  };
  const auto c_op = *index("op"), c_arrive = *index("arrive_ns"),
             c_dispatch = *index("dispatch_ns"), c_complete = *index("complete_ns");
  const auto c_class = index("class"), c_pred = index("predicted_us"),
             c_actual = index("actual_us"), c_sector = index("sector_us"),
             c_qlen = index("queue_len"), c_sched = index("scheduler"), c_err = index("error");

  std::vector<LogRow> rows;
  std::size_t lineno = 1;
  auto parse_row = [&](const std::string& text, std::size_t at) {
    const std::string& line = text;
    const std::size_t lineno = at;
    auto f = csv_fields(line);
    if (f.size() < col.size())
      throw std::runtime_error(fmt::format("{}:{}: {} fields, the header has {}", path, lineno,
                                           f.size(), col.size()));
    auto integer = [&](std::size_t c, const char* name) {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(f[c].c_str(), &end, 10);
      if (f[c].empty() || *end != '\0' || errno != 0)
        throw std::runtime_error(fmt::format("{}:{}: {} '{}' is not an integer", path, lineno,
                                             name, f[c]));
      return static_cast<std::int64_t>(v);
    };
    auto number = [&](std::optional<std::size_t> c, const char* name) -> std::optional<double> {
      if (!c || f[*c].empty()) return std::nullopt;
      char* end = nullptr;
      const double v = std::strtod(f[*c].c_str(), &end);
      if (*end != '\0')
        throw std::runtime_error(fmt::format("{}:{}: {} '{}' is not a number", path, lineno,
                                             name, f[*c]));
      return v;
    };
    LogRow r;
    r.op = f[c_op];
    if (c_class) r.cls = f[*c_class];
    r.arrive_ns = integer(c_arrive, "arrive_ns");
    r.dispatch_ns = integer(c_dispatch, "dispatch_ns");
    r.complete_ns = integer(c_complete, "complete_ns");
    r.predicted_us = number(c_pred, "predicted_us");
    r.actual_us = number(c_actual, "actual_us");
    r.sector_us = number(c_sector, "sector_us");
    r.queue_len = number(c_qlen, "queue_len");
    if (c_sched) r.scheduler = f[*c_sched];
    if (c_err) r.error = f[*c_err];
    if (r.complete_ns < r.arrive_ns)
      throw std::runtime_error(fmt::format("{}:{}: complete_ns {} is before arrive_ns {}", path,
                                           lineno, r.complete_ns, r.arrive_ns));
    return r;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    // A last line without its newline was cut (the writer died, the disk filled up):
    // skipped, and said so, when it does not parse.
    if (in.eof()) {
      try {
        rows.push_back(parse_row(line, lineno));
      } catch (const std::runtime_error&) {
        if (notes != nullptr)
          notes->push_back(fmt::format(
              "{}:{}: the last line is cut (no newline at its end, and it does not parse): "
              "skipped",
              path, lineno));
      }
      break;
    }
    rows.push_back(parse_row(line, lineno));
  }
  return rows;
}

}  // namespace disksched
