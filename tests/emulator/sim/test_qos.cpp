// The qos scheduler (schedulers/classes/qos.cpp, schedulers/dispatch/qos_admission.hpp)
// in virtual time, over the built-in 8 TB SATA drive with its own queue of 32 (SATF,
// 500 ms age limit) and 32 at the drive from the host: a foreground target kept under a
// flood of background work, background never waiting past its bound, a target switched
// during the run, and the goal for a reader with think time. Each compares with the controller switched off
// (control=off: foreground first at the full depth, no bound), which must miss.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench/experiments/workload/workload.hpp"
#include "emulator/sim/simulator.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

struct Run {
  SimResult result;
  std::vector<RequestRecord> done;  // every completion, in completion order
};

Run run(const std::string& sched, const std::string& workload, std::uint64_t requests,
        std::vector<SchedulerSwitch> switches = {}) {
  auto m = load_model("sata7200-8tb");
  SimConfig cfg;
  cfg.depth = 32;
  cfg.warmup = 0;
  cfg.measured = requests;
  cfg.keep_records = false;
  cfg.drive_queue = DriveQueueOptions{.depth = 32, .policy = "satf", .age_limit_ms = 500};
  cfg.switches = std::move(switches);
  Simulator sim(*m, make_scheduler(sched, *m), cfg);
  Run r;
  sim.on_complete([&](const RequestRecord& x) { r.done.push_back(x); });
  auto stream = Workload::parse(workload).closed_stream(DeviceExtent::of(*m), 7);
  r.result = sim.run(*stream);
  return r;
}

// The q-quantile of `cls`'s response times among requests that arrived in [from, to).
double quantile(const Run& r, IoClass cls, double q, Millis from, Millis to = 1e300) {
  std::vector<double> v;
  for (const auto& x : r.done)
    if (x.cls == cls && x.arrival_ms >= from && x.arrival_ms < to) v.push_back(x.response_ms());
  REQUIRE(static_cast<double>(v.size()) * (1 - q) >= 1);  // enough to tell the quantile
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1];
}

// The longest a request of `cls` waited at the host (arrival to dispatch).
double max_host_wait(const Run& r, IoClass cls) {
  double w = 0;
  for (const auto& x : r.done)
    if (x.cls == cls) w = std::max(w, x.dispatch_ms - x.arrival_ms);
  return w;
}

// Background megabytes per second of virtual time, over the run.
double bg_mb_per_s(const Run& r) {
  double bytes = 0, end = 0;
  for (const auto& x : r.done) {
    if (x.cls == IoClass::TimeNoncritical) bytes += x.length;
    end = std::max(end, x.completion_ms);
  }
  return bytes / 1e6 / (end / 1000.0);
}

double counter(const Run& r, const std::string& name) {
  for (const auto& [k, v] : r.result.scheduler_counters)
    if (k == name) return v;
  FAIL("no counter " << name);
  return 0;
}

// One QD1 random 4 KiB reader beside a scrub of 1 MiB reads 32 deep.
const std::string kFlood = "mixed:fg=1,bg=32";
// One QD1 random 4 KiB reader thinking 30 ms after each read, beside a scrub 16 deep.
const std::string kThinker = "mixed:fg=1,bg=16,fg-think=30ms";
constexpr Millis kSettle = 10000;  // the controller's time to find its depth

}  // namespace

TEST_CASE("qos keeps the foreground's p99 under its target beside a background flood",
          "[sim][qos]") {
  const Run on = run("qos:target=50ms", kFlood, 12000);
  const Run off = run("qos:target=50ms,control=off", kFlood, 12000);
  const double p99_on = quantile(on, IoClass::TimeCritical, 0.99, kSettle);
  const double p99_off = quantile(off, IoClass::TimeCritical, 0.99, kSettle);
  INFO("p99 on " << p99_on << " ms, off " << p99_off << " ms; background " << bg_mb_per_s(on)
                 << " vs " << bg_mb_per_s(off) << " MB/s; depth " << counter(on, "qos_depth"));
  CHECK(p99_on <= 50.0);
  CHECK(p99_off > 50.0);
  // The drive was shrunk, and the scrub still moves: a QD1 reader that never pauses
  // leaves no room, so it runs on its bounded wait, taking turns with the reader.
  CHECK(counter(on, "qos_depth") < 32);
  CHECK(counter(on, "qos_noncritical_overdue") > 0);
  CHECK(bg_mb_per_s(on) >= 0.2 * bg_mb_per_s(off));
}

TEST_CASE("qos admits a background request that waited its bound", "[sim][qos]") {
  // 64 foreground readers keep requests waiting at every choice: without a bound the
  // scrub gets the drive only when they pause, which they never do.
  const std::string flood = "mixed:fg=64,bg=4";
  const Run on = run("qos:target=1s,bg-wait=300ms", flood, 8000);
  const Run off = run("qos:target=1s,bg-wait=300ms,control=off", flood, 8000);
  const double wait_on = max_host_wait(on, IoClass::TimeNoncritical);
  const double wait_off = max_host_wait(off, IoClass::TimeNoncritical);
  INFO("background's longest wait: on " << wait_on << " ms, off " << wait_off << " ms");
  // The bound, plus at most the time until a place at the drive frees.
  CHECK(wait_on <= 300.0 + 100.0);
  CHECK(counter(on, "qos_noncritical_overdue") > 0);
  CHECK(counter(on, "qos_noncritical_max_wait_ms") == Approx(wait_on));
  CHECK(wait_off > 1000.0);
}

TEST_CASE("qos takes a new target switched in during the run", "[sim][qos]") {
  // A reader with think time leaves the drive to the scrub between its reads. A loose
  // target with background up to the depth (bg-depth=0) first: the scrub fills the drive
  // and the reader waits behind it; then the default, 50 ms, as the control socket's
  // `switch qos:target=50ms` would.
  constexpr Millis at = 30000;
  const Run on = run("qos:bg-depth=0,target=2s", kThinker, 8000, {{at, "qos:target=50ms"}});
  const Run off =
      run("qos:bg-depth=0,target=2s", kThinker, 8000, {{at, "qos:target=50ms,control=off"}});
  REQUIRE(on.result.switches_made == 1);
  // Before: even the median misses 50 ms (the scrub's requests fill the drive).
  const double before = quantile(on, IoClass::TimeCritical, 0.5, 5000, at);
  const double after = quantile(on, IoClass::TimeCritical, 0.99, at + kSettle);
  // Without control the reader starves (a read a second): even its median misses.
  const double after_off = quantile(off, IoClass::TimeCritical, 0.5, at + kSettle);
  INFO("median before " << before << " ms, p99 after " << after << " ms, median after (off) "
                        << after_off);
  CHECK(before > 50.0);
  CHECK(after <= 50.0);
  CHECK(after_off > 50.0);
}

TEST_CASE("qos keeps a reader with think time within twice its idle p99 while the scrub keeps "
          "half its solo throughput",
          "[sim][qos]") {
  // The goal, for a reader that thinks between reads (as interactive ones do).
  const Run idle = run("fcfs", "mixed:fg=1,bg=0,fg-think=30ms", 3000);
  const Run solo = run("fcfs", "mixed:fg=0,bg=16", 3000);
  const Run on = run("qos:target=50ms", kThinker, 8000);
  const Run off = run("qos:target=50ms,control=off", kThinker, 8000);
  const double idle_p99 = quantile(idle, IoClass::TimeCritical, 0.99, 0);
  const double p99_on = quantile(on, IoClass::TimeCritical, 0.99, kSettle);
  // Without control the reader starves (a read a second): even its median misses.
  const double p50_off = quantile(off, IoClass::TimeCritical, 0.5, kSettle);
  INFO("p99 idle " << idle_p99 << " ms, qos " << p99_on << ", median off " << p50_off << "; scrub solo "
                   << bg_mb_per_s(solo) << " MB/s, qos " << bg_mb_per_s(on) << ", off "
                   << bg_mb_per_s(off) << "; depth " << counter(on, "qos_depth"));
  CHECK(p99_on <= 2 * idle_p99);
  CHECK(bg_mb_per_s(on) >= 0.5 * bg_mb_per_s(solo));
  CHECK(p50_off > 2 * idle_p99);
}

TEST_CASE("qos keeps the target at a depth it may not cut: background never beside the reader",
          "[sim][qos]") {
  // min-depth=4: the controller cannot bring the drive down to one request. Background
  // holds at most bg-depth=2 places and is sent only while no foreground request is at
  // the drive, so the reader never finds the drive's queue full of scrub reads that its
  // shortest-positioning order serves first.
  const Run on = run("qos:target=50ms,min-depth=4,bg-depth=2", kThinker, 8000);
  const Run off = run("qos:target=50ms,min-depth=4,bg-depth=2,control=off", kThinker, 8000);
  const double p99_on = quantile(on, IoClass::TimeCritical, 0.99, kSettle);
  const double p50_off = quantile(off, IoClass::TimeCritical, 0.5, kSettle);
  INFO("p99 on " << p99_on << " ms, median off " << p50_off << " ms; depth "
                 << counter(on, "qos_depth"));
  CHECK(counter(on, "qos_min_depth_seen") >= 4);
  CHECK(p99_on <= 50.0);
  CHECK(p50_off > 50.0);
}
