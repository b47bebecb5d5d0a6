// The latency log round trip (writer thread -> CSV -> reader) and its summary, on
// records whose statistics are known.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/filter/latency_log.hpp"
#include "tools/log_summary.hpp"
#include "schedulers/request.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

std::string temp_path(const char* name) {
  return std::string("/tmp/disksched-test-") + std::to_string(getpid()) + "-" + name;
}

// A prediction of `us` real microseconds (at timescale 1), dispatched at 0.
void predict(LiveRecord& r, double us) {
  r.predicted = true;
  r.core.prediction.cost.transfer_ms = us / 1e3;
}

}  // namespace

TEST_CASE("latency log: written by its thread, read back field by field", "[filter][log]") {
  const std::string path = temp_path("lat.csv");
  auto sched = std::make_shared<const std::string>("priority:variant=2,timeout=500ms");
  {
    LatencyLogWriter w(path);
    w.start();
    // 100 reads with latency 1..100 ms (arrival at 0), predicted 10 us off, queue 1..100;
    // 10 writes with latency 200 ms; 1 failed read.
    for (int i = 1; i <= 100; ++i) {
      LiveRecord r = LiveRecord::arriving(Op::Read, i * 4096, 4096, 0, {IoClass::TimeCritical, 0});
      r.core.seq = i;
      r.arrive_ns = 1'000'000'000;
      r.dispatch_ns = r.arrive_ns;
      r.issue_ns = r.arrive_ns + 1000;
      r.complete_ns = r.arrive_ns + i * 1'000'000;
      predict(r, i * 1000.0 + (i <= 90 ? 10.0 : 500.0));
      r.sector_us = 208.0;
      r.core.queue_len = i;
      r.scheduler = sched;
      w.push(r);
    }
    for (int i = 0; i < 10; ++i) {
      LiveRecord r = LiveRecord::arriving(Op::Write, 0, 0, kFlagFua, {IoClass::TimeLimited, 250});
      r.core.seq = 200 + i;
      r.arrive_ns = 2'000'000'000;
      r.dispatch_ns = r.arrive_ns + 150'000'000;
      r.complete_ns = r.arrive_ns + 200'000'000;
      r.core.queue_len = 1;
      r.scheduler = sched;
      w.push(r);
    }
    LiveRecord bad;
    bad.core.seq = 999;
    bad.arrive_ns = bad.dispatch_ns = 3'000'000'000;
    bad.complete_ns = 3'000'500'000;
    bad.error = EIO;
    bad.core.queue_len = 1;
    w.push(bad);
    w.stop();
    REQUIRE(w.written() == 111);
  }
  {
    std::ifstream in(path);
    std::string header, first;
    std::getline(in, header);
    std::getline(in, first);
    REQUIRE(header == latency_log_header());
    REQUIRE_THAT(first, Contains("\"priority:variant=2,timeout=500ms\""));
  }
  const auto rows = read_latency_log(path);
  REQUIRE(rows.size() == 111);
  REQUIRE(rows[0].op == "read");
  REQUIRE(rows[0].cls == "critical");
  REQUIRE(rows[0].scheduler == "priority:variant=2,timeout=500ms");
  REQUIRE(rows[100].cls == "limited:250ms");
  REQUIRE(rows[110].error == "EIO");

  const LogSummary s = summarize_log(rows);
  REQUIRE(s.requests == 111);
  REQUIRE(s.errors == 1);
  REQUIRE(s.latency.count == 110);
  REQUIRE(s.by_op.at("read").count == 100);
  REQUIRE(s.by_op.at("read").mean_ms == Approx(50.5));
  REQUIRE(s.by_op.at("read").p50_ms == Approx(50));
  REQUIRE(s.by_op.at("read").p95_ms == Approx(95));
  REQUIRE(s.by_op.at("read").p99_ms == Approx(99));
  REQUIRE(s.by_op.at("read").max_ms == Approx(100));
  REQUIRE(s.by_op.at("write").mean_ms == Approx(200));
  REQUIRE(s.by_class.at("limited:250ms").count == 10);
  REQUIRE(s.latency.max_ms == Approx(200));
  // Queue lengths: reads 1..100, 10 writes and the failure at 1.
  REQUIRE(*s.mean_queue_len == Approx((5050.0 + 11) / 111));
  REQUIRE(s.prediction.count == 100);
  REQUIRE(*s.prediction.within_sector == Approx(0.90));
  REQUIRE(*s.prediction.within_10_sectors == Approx(1.0));
  REQUIRE(s.prediction.p50_abs_us == Approx(10).margin(0.01));
  REQUIRE(s.prediction.max_abs_us == Approx(500).margin(0.01));
  REQUIRE(s.duration_s == Approx(2.0005));

  const auto j = summary_to_json(s);
  for (const char* key : {"requests", "mean_ms", "p95_ms", "p99_ms", "max_ms", "mean_queue_len",
                          "prediction_within_sector"})
    REQUIRE(j.contains(key));
  REQUIRE(j["prediction_within_sector"].get<double>() == Approx(0.9));
  REQUIRE(j["requests"].get<int>() == 111);
  REQUIRE_THAT(summary_to_text(s), Contains("op read") && Contains("within 1 sector 90.0%"));
  std::remove(path.c_str());
}

TEST_CASE("latency log reader: clear errors", "[filter][log]") {
  const std::string path = temp_path("bad.csv");
  {
    std::ofstream out(path);
    out << "id,op,arrive_ns,dispatch_ns,complete_ns\n1,read,10,20,x30\n";
  }
  REQUIRE_THROWS_WITH(read_latency_log(path), Contains(":2: complete_ns 'x30'"));
  {
    std::ofstream out(path);
    out << "time_ms,op,offset,length\n";
  }
  REQUIRE_THROWS_WITH(read_latency_log(path), Contains("no 'arrive_ns' column"));
  REQUIRE_THROWS_WITH(read_latency_log(path + ".missing"), Contains("cannot open"));
  std::remove(path.c_str());
}

TEST_CASE("summary of a log without predictions or sector times", "[filter][log]") {
  std::vector<LogRow> rows(4);
  for (int i = 0; i < 4; ++i) {
    rows[i].op = "read";
    rows[i].arrive_ns = 0;
    rows[i].dispatch_ns = 0;
    rows[i].complete_ns = (i + 1) * 1'000'000;
  }
  const auto s = summarize_log(rows);
  REQUIRE_FALSE(s.mean_queue_len);
  REQUIRE_FALSE(s.prediction.within_sector);
  const auto j = summary_to_json(s);
  REQUIRE(j["prediction_within_sector"].is_null());
  REQUIRE(j["mean_ms"].get<double>() == Approx(2.5));
}

namespace {

LiveRecord record(std::uint64_t id) {
  LiveRecord r;
  r.core.seq = id;
  r.arrive_ns = r.dispatch_ns = 1'000'000'000;
  r.complete_ns = r.arrive_ns + 1'000'000;
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Reports {
  std::vector<std::string> seen;
  LatencyLogWriter::Options options(bool append = true, std::size_t capacity = 65536) {
    LatencyLogWriter::Options o;
    o.append = append;
    o.capacity = capacity;
    o.report = [this](const std::string& m) { seen.push_back(m); };
    return o;
  }
};

}  // namespace

TEST_CASE("latency log: a FIFO, a directory or a file that is no latency log is refused",
          "[filter][log]") {
  const std::string fifo = temp_path("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // No reader: opening it for writing would block start-up for good.
  REQUIRE_THROWS_WITH(LatencyLogWriter(fifo), Contains("is a FIFO") && Contains("regular file"));
  std::remove(fifo.c_str());
  REQUIRE_THROWS_WITH(LatencyLogWriter("/tmp"), Contains("is a directory"));
  REQUIRE_THROWS_WITH(LatencyLogWriter("/dev/null"), Contains("is a device"));
  // A disk image given by mistake: refused, and not one byte of it changed.
  const std::string image = temp_path("disk.img");
  std::string contents(1 << 20, '\0');
  contents.replace(0, 8, "EFI PART");
  { std::ofstream(image, std::ios::binary) << contents; }
  REQUIRE_THROWS_WITH(LatencyLogWriter(image), Contains("is not a disksched latency log"));
  REQUIRE(slurp(image) == contents);
  std::remove(image.c_str());
}

TEST_CASE("latency log: an existing latency log is appended to", "[filter][log]") {
  const std::string path = temp_path("append.csv");
  std::remove(path.c_str());
  for (int run = 0; run < 2; ++run) {
    LatencyLogWriter w(path);
    w.start();
    for (int i = 0; i < 3; ++i) w.push(record(run * 10 + i));
    w.stop();
  }
  const auto rows = read_latency_log(path);
  REQUIRE(rows.size() == 6);
  // One header, at the top.
  const std::string text = slurp(path);
  REQUIRE(text.rfind(latency_log_header(), 0) == 0);
  REQUIRE(text.find(latency_log_header(), 1) == std::string::npos);
  // replay --log replaces its log (still only a latency log).
  Reports r;
  {
    LatencyLogWriter w(path, r.options(false));
    w.push(record(99));
  }
  REQUIRE(read_latency_log(path).size() == 1);
  std::remove(path.c_str());
}

TEST_CASE("latency log: a full buffer drops and counts, and says so once", "[filter][log]") {
  const std::string path = temp_path("bounded.csv");
  std::remove(path.c_str());
  Reports r;
  // No writer thread: nothing drains the buffer, as when the file system stalls.
  LatencyLogWriter w(path, r.options(true, 100));
  for (int i = 0; i < 250; ++i) w.push(record(i));
  REQUIRE(w.status().dropped == 150);
  REQUIRE(r.seen.size() == 1);
  REQUIRE_THAT(r.seen[0], Contains("cannot keep up") && Contains("log_dropped"));
  w.stop();
  REQUIRE(w.status().written == 100);
  REQUIRE(read_latency_log(path).size() == 100);
  std::remove(path.c_str());
}

TEST_CASE("latency log: a CLI writing without a thread loses nothing past the buffer",
          "[filter][log]") {
  const std::string path = temp_path("inline.csv");
  std::remove(path.c_str());
  Reports r;
  auto o = r.options(false, 100);
  o.drop_when_full = false;
  LatencyLogWriter w(path, o);
  for (int i = 0; i < 250; ++i) w.push(record(i));
  w.stop();
  REQUIRE(w.status().dropped == 0);
  REQUIRE(read_latency_log(path).size() == 250);
  REQUIRE(r.seen.empty());
  std::remove(path.c_str());
}

namespace {

// A file-size limit makes writes past it fail (EFBIG) as a full file system would
// (ENOSPC), for this process only; SIGXFSZ is ignored so the write returns the error.
struct FileSizeLimit {
  rlimit old{};
  void (*old_handler)(int);
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old);
    old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit l = old;
    l.rlim_cur = bytes;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &l) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
  }
};

}  // namespace

TEST_CASE("latency log: write errors are counted, reported once, and leave no cut line",
          "[filter][log]") {
  const std::string path = temp_path("full.csv");
  std::remove(path.c_str());
  Reports r;
  LatencyLogWriter w(path, r.options(true, 1000));
  std::uint64_t pushed = 0;
  {
    FileSizeLimit limit(4096 + 100);
    // Batches of 10 lines (~80 bytes each): the first batches fit, then one lands
    // partly, then none.
    for (int batch = 0; batch < 20; ++batch) {
      for (int i = 0; i < 10; ++i) w.push(record(pushed++));
      w.flush();
    }
  }
  const auto st = w.status();
  INFO(st.written << " written, " << st.dropped << " dropped");
  REQUIRE(st.written > 0);
  REQUIRE(st.write_errors > 1);
  REQUIRE(st.written + st.dropped == pushed);
  REQUIRE_THAT(st.last_error, Contains("too large"));
  REQUIRE(r.seen.size() == 1);
  REQUIRE_THAT(r.seen[0], Contains("write failed") && Contains("lines lost"));
  // Every line in the file is whole: the summary reads all of them.
  const std::string text = slurp(path);
  REQUIRE(text.back() == '\n');
  REQUIRE(read_latency_log(path).size() == st.written);
  std::remove(path.c_str());
}

TEST_CASE("latency log: copytruncate gets a new header; reopen follows a moved log",
          "[filter][log]") {
  const std::string path = temp_path("rotate.csv"), moved = path + ".1";
  std::remove(path.c_str());
  std::remove(moved.c_str());
  LatencyLogWriter w(path);
  w.push(record(1));
  w.flush();
  // logrotate copytruncate: copy away, then empty the file in place. Without O_APPEND the
  // next line would land at the old offset behind a hole of NULs.
  REQUIRE(truncate(path.c_str(), 0) == 0);
  w.push(record(2));
  w.flush();
  auto rows = read_latency_log(path);
  REQUIRE(rows.size() == 1);
  REQUIRE(slurp(path).find('\0') == std::string::npos);
  // logrotate create: the log is moved away, the daemon told to reopen.
  REQUIRE(std::rename(path.c_str(), moved.c_str()) == 0);
  w.push(record(3));
  w.flush();
  REQUIRE(read_latency_log(moved).size() == 2);  // still the old file until reopen
  w.reopen();
  w.push(record(4));
  w.flush();
  REQUIRE(read_latency_log(moved).size() == 2);
  rows = read_latency_log(path);
  REQUIRE(rows.size() == 1);
  // reopen refuses what start-up refuses, and keeps the old file then.
  std::remove(path.c_str());
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(w.reopen(), Contains("is a FIFO"));
  std::remove(path.c_str());
  std::remove(moved.c_str());
}

TEST_CASE("latency log: a cut last line is skipped and said so; on append it is removed",
          "[filter][log]") {
  const std::string path = temp_path("cut.csv");
  std::remove(path.c_str());
  {
    LatencyLogWriter w(path);
    for (int i = 0; i < 3; ++i) w.push(record(i));
  }
  const std::string whole = slurp(path);
  { std::ofstream(path, std::ios::app) << "3,read,0,4096,,critical,1000"; }
  std::vector<std::string> notes;
  REQUIRE(read_latency_log(path, &notes).size() == 3);
  REQUIRE(notes.size() == 1);
  REQUIRE_THAT(notes[0], Contains(":5: the last line is cut"));
  // A bad line that is not the last, or ends with its newline, is still an error.
  { std::ofstream(path, std::ios::app) << "\n"; }
  REQUIRE_THROWS_WITH(read_latency_log(path), Contains(":5:"));
  REQUIRE(truncate(path.c_str(), static_cast<off_t>(whole.size() + 20)) == 0);
  // Appending after the cut line would bury it mid-file: it is taken off first.
  Reports r;
  {
    LatencyLogWriter w(path, r.options());
    w.push(record(9));
  }
  REQUIRE(r.seen.size() == 1);
  REQUIRE_THAT(r.seen[0], Contains("removed a cut last line (20 bytes)"));
  notes.clear();
  REQUIRE(read_latency_log(path, &notes).size() == 4);
  REQUIRE(notes.empty());
  std::remove(path.c_str());
}
