// Metrics: what one completion adds to the exposition text, exactly; label escaping;
// the MetricsFile writes whole files by rename; the control command's reply.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "daemon/filter/control_commands.hpp"
#include "schedulers/registry.hpp"
#include "predictor/lbn_model.hpp"
#include "daemon/filter/filter_config.hpp"
#include "daemon/filter/metrics.hpp"
#include "daemon/filter/metrics_file.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l == line) return true;
  return false;
}

// A completed request's record: arrived at 0, times in seconds, `predicted_s` < 0: none.
LiveRecord completed(Op op, IoClass cls, bool ok, double response_s, double service_s,
                     std::uint32_t queue_len, double predicted_s) {
  LiveRecord r = LiveRecord::arriving(op, 0, 4096, 0, {cls, 0});
  r.core.ok = ok;
  r.core.queue_len = queue_len;
  r.complete_ns = std::llround(response_s * 1e9);
  r.dispatch_ns = r.complete_ns - std::llround(service_s * 1e9);
  r.predicted = predicted_s >= 0;
  r.core.prediction.cost.transfer_ms = predicted_s * 1e3;
  return r;
}

}  // namespace

TEST_CASE("metrics: counters and cumulative histogram buckets per op and class", "[filter][metrics]") {
  Metrics m("sdb");
  m.observe(completed(Op::Read, IoClass::TimeNoncritical, true, 0.003, 0.002, 4, 0.0015));
  m.observe(completed(Op::Read, IoClass::TimeNoncritical, false, 0.2, 0.1, 0, -1));
  m.observe(completed(Op::Write, IoClass::TimeCritical, true, 0.0004, 0.0003, 1, 0.0003));
  const std::string t = m.render(nullptr, nullptr);

  CHECK(has_line(t, "# TYPE disksched_requests_total counter"));
  CHECK(has_line(t, R"(disksched_requests_total{disk="sdb",op="read",class="noncritical"} 2)"));
  CHECK(has_line(t, R"(disksched_requests_total{disk="sdb",op="write",class="critical"} 1)"));
  CHECK_FALSE(Contains(R"(op="trim")").match(t));  // no requests, no series
  CHECK(has_line(t, R"(disksched_request_errors_total{disk="sdb",op="read",class="noncritical"} 1)"));
  CHECK(has_line(t, R"(disksched_request_errors_total{disk="sdb",op="write",class="critical"} 0)"));
  // 0.003 s falls in le=0.005, 0.2 s in le=0.25: buckets count everything at or below.
  const std::string rb = R"(disksched_response_seconds_bucket{disk="sdb",op="read",class="noncritical",le=)";
  CHECK(has_line(t, rb + R"("0.0025"} 0)"));
  CHECK(has_line(t, rb + R"("0.005"} 1)"));
  CHECK(has_line(t, rb + R"("0.1"} 1)"));
  CHECK(has_line(t, rb + R"("0.25"} 2)"));
  CHECK(has_line(t, rb + R"("+Inf"} 2)"));
  CHECK(has_line(t, R"(disksched_response_seconds_count{disk="sdb",op="read",class="noncritical"} 2)"));
  CHECK(has_line(t, R"(disksched_response_seconds_sum{disk="sdb",op="read",class="noncritical"} 0.203)"));
  // Prediction error only for successful requests with a prediction: |0.002-0.0015|, 0.
  CHECK(has_line(t, R"(disksched_prediction_error_seconds_count{disk="sdb"} 2)"));
  CHECK(has_line(t, R"(disksched_prediction_error_seconds_bucket{disk="sdb",le="0.0001"} 1)"));
  CHECK(has_line(t, R"(disksched_prediction_error_seconds_bucket{disk="sdb",le="0.0005"} 2)"));
  CHECK(has_line(t, R"(disksched_dispatch_queue_length_bucket{disk="sdb",le="0"} 1)"));
  CHECK(has_line(t, R"(disksched_dispatch_queue_length_bucket{disk="sdb",le="4"} 3)"));
  CHECK(has_line(t, R"(disksched_dispatch_queue_length_sum{disk="sdb"} 5)"));
  CHECK(has_line(t, R"(disksched_device_open{disk="sdb"} 0)"));
  CHECK_FALSE(Contains("disksched_log_records_written_total").match(t));
  LatencyLogWriter::Status log;
  log.written = 7;
  log.dropped = 3;
  log.write_errors = 1;
  CHECK(has_line(m.render(nullptr, &log), R"(disksched_log_records_written_total{disk="sdb"} 7)"));
  CHECK(has_line(m.render(nullptr, &log), R"(disksched_log_records_dropped_total{disk="sdb"} 3)"));
  CHECK(has_line(m.render(nullptr, &log), R"(disksched_log_write_errors_total{disk="sdb"} 1)"));
}

TEST_CASE("metrics: label values are escaped", "[filter][metrics]") {
  CHECK(prometheus_label_value(R"(a"b\c)") == R"(a\"b\\c)");
  CHECK(prometheus_label_value("x\ny") == "x\\ny");
  Metrics m(R"(we"ird)");
  CHECK(has_line(m.render(nullptr, nullptr), R"(disksched_device_open{disk="we\"ird"} 0)"));
}

TEST_CASE("metrics: the control command and the file", "[filter][metrics]") {
  Metrics m("sdc");
  m.observe(completed(Op::Read, IoClass::TimeNoncritical, true, 0.01, 0.01, 0, -1));
  SchedulerSpec sched = Registry::builtin().check("fcfs", LbnModel(1ull << 30));
  ControlTarget target{nullptr, &sched, "", "", nullptr,
                       [&] { return m.render(nullptr, nullptr); }};
  auto reply = nlohmann::json::parse(handle_control_command("metrics", target));
  REQUIRE(reply["ok"] == true);
  CHECK(reply["metrics"].get<std::string>() == m.render(nullptr, nullptr));
  ControlTarget none{nullptr, &sched, "", ""};
  auto off = nlohmann::json::parse(handle_control_command("metrics", none));
  CHECK(off["ok"] == false);

  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("disksched-metrics-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "sdc.prom").string();
  int renders = 0;
  {
    MetricsFile f(path, 60000, [&] { return "render " + std::to_string(++renders) + "\n"; });
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    CHECK(first == "render 1");  // written at construction
    f.start();
    f.stop();  // a last write at stop
  }
  std::ifstream in(path);
  std::string last;
  std::getline(in, last);
  CHECK(last == "render 2");
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    CHECK(e.path().filename() == "sdc.prom");
  }
  CHECK(files == 1);
  CHECK_THROWS_WITH(MetricsFile((dir / "no" / "x.prom").string(), 1000, [] { return ""; }),
                    Contains("cannot write"));
  fs::remove_all(dir);
}

TEST_CASE("metrics: configuration keys and the disk label", "[filter][metrics]") {
  FilterConfig c;
  CHECK(c.disk_label() == "disksched");
  REQUIRE(c.set("sched-metrics", "/var/lib/prometheus/node-exporter/disksched-sdb.prom", portable_key_parsers()));
  CHECK(c.disk_label() == "disksched-sdb");
  REQUIRE(c.set("sched-disk", "sdb", portable_key_parsers()));
  CHECK(c.disk_label() == "sdb");
  REQUIRE(c.set("sched-metrics-interval", "15s", portable_key_parsers()));
  CHECK(c.metrics_interval_ms == 15000);
  CHECK_THROWS_WITH(c.set("sched-metrics-interval", "10ms", portable_key_parsers()),
                    Contains("sched-metrics-interval=10ms: expected a duration of at least 100ms"));
  CHECK_THROWS_WITH(c.set("sched-disk", "a\"b", portable_key_parsers()), Contains("sched-disk=a\"b: needs a name without quotes"));
  CHECK_THROWS_WITH(c.set("sched-metrics", "", portable_key_parsers()), Contains("sched-metrics=: needs a file path"));
}

TEST_CASE("metrics: a link planted in the textfile directory is refused, its target untouched",
          "[filter][metrics]") {
  // As root, sched-metrics= in a directory others may write: a link at the file's name
  // or at the old temporary name (.NAME.tmp) must not make the filter overwrite what it
  // points to; nor may a mistyped path overwrite a device or a FIFO.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("disksched-metrics-link-" + std::to_string(getpid()));
  const fs::path elsewhere = dir / "elsewhere";
  fs::create_directories(elsewhere);
  const fs::path victim = elsewhere / "victim";
  std::ofstream(victim) << "precious\n";
  auto victim_text = [&] {
    std::ifstream in(victim);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  fs::create_symlink(victim, dir / "link.prom");
  CHECK_THROWS_WITH(MetricsFile((dir / "link.prom").string(), 1000, [] { return "x 1\n"; }),
                    Contains((dir / "link.prom").string()) && Contains("is a symbolic link"));
  CHECK(victim_text() == "precious\n");
  fs::create_symlink(victim, dir / ".sdc.prom.tmp");
  {
    MetricsFile f((dir / "sdc.prom").string(), 1000, [] { return "x 1\n"; });
  }
  CHECK(victim_text() == "precious\n");
  std::ifstream in(dir / "sdc.prom");
  std::string line;
  std::getline(in, line);
  CHECK(line == "x 1");
  fs::create_symlink("/dev/null", dir / "null.prom");
  CHECK_THROWS_WITH(MetricsFile((dir / "null.prom").string(), 1000, [] { return "x 1\n"; }),
                    Contains("is a symbolic link"));
  CHECK(fs::is_character_file("/dev/null"));
  REQUIRE(mkfifo((dir / "fifo.prom").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(MetricsFile((dir / "fifo.prom").string(), 1000, [] { return "x 1\n"; }),
                    Contains("is a FIFO"));
  fs::remove_all(dir);
}

TEST_CASE("metrics: the qos scheduler's counters, with a class label where they have one",
          "[filter][metrics]") {
  Metrics m("sdb");
  Dispatcher::Snapshot snap;
  snap.scheduler = "qos";
  snap.scheduler_counters = {{"qos_depth", 3},
                             {"qos_shrinks", 2},
                             {"qos_critical_max_wait_ms", 12.5},
                             {"qos_noncritical_max_wait_ms", 1020},
                             {"qos_noncritical_overdue", 7},
                             {"qos_critical_over_target", 4},
                             {"other_counter", 9}};
  const std::string t = m.render(&snap, nullptr);
  CHECK(has_line(t, "# TYPE disksched_qos_depth gauge"));
  CHECK(has_line(t, R"(disksched_qos_depth{disk="sdb"} 3)"));
  CHECK(has_line(t, "# TYPE disksched_qos_depth_cuts_total counter"));
  CHECK(has_line(t, R"(disksched_qos_depth_cuts_total{disk="sdb"} 2)"));
  CHECK(has_line(t, R"(disksched_qos_max_wait_seconds{disk="sdb",class="critical"} 0.0125)"));
  CHECK(has_line(t, R"(disksched_qos_max_wait_seconds{disk="sdb",class="noncritical"} 1.02)"));
  CHECK(has_line(t, R"(disksched_qos_overdue_total{disk="sdb",class="noncritical"} 7)"));
  CHECK(has_line(t, R"(disksched_qos_over_target_total{disk="sdb",class="critical"} 4)"));
  // One family header for the two classes' series; no series for what qos did not count.
  std::size_t headers = 0;
  for (std::size_t at = 0; (at = t.find("# TYPE disksched_qos_max_wait_seconds", at)) != std::string::npos; ++at)
    ++headers;
  CHECK(headers == 1);
  CHECK_FALSE(Contains("disksched_qos_grows").match(t));
  CHECK_FALSE(Contains("other_counter").match(t));
  // Another scheduler: no qos series at all.
  snap.scheduler_counters.clear();
  CHECK_FALSE(Contains("disksched_qos_").match(m.render(&snap, nullptr)));
}
