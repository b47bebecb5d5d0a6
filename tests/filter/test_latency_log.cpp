// The latency log round trip (writer thread -> CSV -> reader) and its summary, on
// records whose statistics are known.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "daemon/filter/latency_log.hpp"
#include "daemon/filter/log_summary.hpp"
#include "schedulers/request.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

std::string temp_path(const char* name) {
  return std::string("/tmp/disksched-test-") + std::to_string(getpid()) + "-" + name;
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
      LatencyRecord r;
      r.id = i;
      r.op = Op::Read;
      r.offset = i * 4096;
      r.length = 4096;
      r.cls = {IoClass::TimeCritical, 0};
      r.arrive_ns = 1'000'000'000;
      r.dispatch_ns = r.arrive_ns;
      r.issue_ns = r.arrive_ns + 1000;
      r.complete_ns = r.arrive_ns + i * 1'000'000;
      r.predicted_us = i * 1000.0 + (i <= 90 ? 10.0 : 500.0);
      r.sector_us = 208.0;
      r.queue_len = i;
      r.scheduler = sched;
      w.push(r);
    }
    for (int i = 0; i < 10; ++i) {
      LatencyRecord r;
      r.id = 200 + i;
      r.op = Op::Write;
      r.flags = kFlagFua;
      r.cls = {IoClass::TimeLimited, 250};
      r.arrive_ns = 2'000'000'000;
      r.dispatch_ns = r.arrive_ns + 150'000'000;
      r.complete_ns = r.arrive_ns + 200'000'000;
      r.queue_len = 1;
      r.scheduler = sched;
      w.push(r);
    }
    LatencyRecord bad;
    bad.id = 999;
    bad.arrive_ns = bad.dispatch_ns = 3'000'000'000;
    bad.complete_ns = 3'000'500'000;
    bad.error = EIO;
    bad.queue_len = 1;
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
