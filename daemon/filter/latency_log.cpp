#include "daemon/filter/latency_log.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

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

std::string format_latency_record(const LatencyRecord& r) {
  const double actual_us = static_cast<double>(r.complete_ns - r.dispatch_ns) / 1e3;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{},{},{}", r.id,
                     op_name(r.op), r.offset, r.length, format_flags(r.flags),
                     format_class(r.cls), r.arrive_ns, r.dispatch_ns, r.issue_ns, r.complete_ns,
                     r.predicted_us < 0 ? std::string() : fmt::format("{:.3f}", r.predicted_us),
                     actual_us, r.sector_us, r.queue_len,
                     r.scheduler ? csv_field(*r.scheduler) : std::string(),
                     r.error != 0 ? errno_name(r.error) : "");
}

LatencyLogWriter::LatencyLogWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr)
    throw std::runtime_error(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 16);
  std::fprintf(file_, "%s\n", latency_log_header());
  std::fflush(file_);
  buffer_.reserve(1024);
}

LatencyLogWriter::~LatencyLogWriter() { stop(); }

void LatencyLogWriter::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || file_ == nullptr) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void LatencyLogWriter::push(LatencyRecord r) {
  std::lock_guard lock(mu_);
  buffer_.push_back(std::move(r));
  if (buffer_.size() == 512) cv_.notify_one();
}

void LatencyLogWriter::write_batch(std::vector<LatencyRecord>& batch) {
  for (const auto& r : batch) {
    const std::string line = format_latency_record(r);
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fputc('\n', file_);
  }
  std::fflush(file_);
  written_ += batch.size();
  batch.clear();
}

void LatencyLogWriter::loop() {
  std::vector<LatencyRecord> batch;
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
  std::lock_guard lock(mu_);
  if (file_ == nullptr) return;
  // Whatever was pushed without a running thread (or after it left).
  std::vector<LatencyRecord> rest;
  rest.swap(buffer_);
  write_batch(rest);
  std::fclose(file_);
  file_ = nullptr;
}

std::uint64_t LatencyLogWriter::written() const {
  std::lock_guard lock(mu_);
  return written_;
}

std::vector<LogRow> read_latency_log(const std::string& path) {
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
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
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
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace disksched
