// Experiments: byte-identical JSON from the seed, sweeps independent of the thread
// count, JW's sustained-rate interpolation, range parsing.
#include <catch2/catch.hpp>

#include <cstring>

#include "bench/experiments/sweep/experiment.hpp"
#include "bench/experiments/sweep/sweep.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

TEST_CASE("same seed, byte-identical JSON; another seed, different JSON", "[sim][experiment]") {
  auto model = load_model("hp97560");
  const Workload w = Workload::parse("uniform:size=8k");
  PointSpec spec;
  spec.sched = "sstf";
  spec.rate = 40;
  spec.reps = 3;
  spec.seed = 5;
  spec.cfg.warmup = 200;
  spec.cfg.measured = 500;
  const std::string a = to_json(run_point(*model, w, spec), "hp97560", w).dump(2);
  const std::string b = to_json(run_point(*model, w, spec), "hp97560", w).dump(2);
  CHECK(a == b);
  spec.seed = 6;
  const std::string c = to_json(run_point(*model, w, spec), "hp97560", w).dump(2);
  CHECK(a != c);
  for (const char* key : {"\"requests\"", "\"throughput_per_s\"", "\"mean_ms\"", "\"p95_ms\"",
                          "\"p99_ms\"", "\"max_ms\"", "\"std_ms\"", "\"sq_cv\"", "\"ci95_mean_ms\"",
                          "\"mean_queue_len\"", "\"mean_seek_ms\"", "\"mean_rotation_ms\"",
                          "\"mean_transfer_ms\"", "\"utilization\""})
    CHECK_THAT(a, Contains(key));
}

// The summary from samples taken as requests complete (no records kept: run_once
// without `out`) is the summary from the kept records, bit for bit, also for a
// saturated run (only the completed measured requests) and a run where the scheduler
// reorders (completion order is not seq order).
TEST_CASE("a run's summary without records equals the one from its records", "[sim][experiment]") {
  auto model = load_model("hp97560");
  const Workload w = Workload::parse("uniform:size=8k");
  struct Case {
    const char* sched;
    double rate;
    std::size_t max_queue;
  };
  for (const Case& k : {Case{"fcfs", 30, 0}, Case{"asatf:w=30", 70, 0}, Case{"sstf", 45, 0},
                        Case{"fcfs", 90, 150}}) {
    SimConfig cfg;
    cfg.warmup = 100;
    cfg.measured = 400;
    cfg.max_queue = k.max_queue;
    SimResult full;
    const RunSummary a = run_once(*model, w, k.sched, k.rate, 9, cfg, &full);
    const RunSummary b = run_once(*model, w, k.sched, k.rate, 9, cfg);
    INFO(k.sched << " at " << k.rate);
    CHECK(a.saturated == (k.max_queue > 0));
    CHECK(b.saturated == a.saturated);
    CHECK(b.requests == a.requests);
    CHECK(a.requests == full.measured.size());
    CHECK(a.requests > 0);
    if (k.max_queue > 0) CHECK(a.requests < cfg.measured);
    for (double RunSummary::*f :
         {&RunSummary::throughput_per_s, &RunSummary::mean_ms, &RunSummary::std_ms,
          &RunSummary::sq_cv, &RunSummary::p95_ms, &RunSummary::p95_hist_ms, &RunSummary::p99_ms,
          &RunSummary::max_ms, &RunSummary::mean_wait_ms, &RunSummary::mean_delay_ms,
          &RunSummary::mean_service_ms, &RunSummary::mean_queue_len, &RunSummary::mean_seek_ms,
          &RunSummary::mean_rotation_ms, &RunSummary::mean_transfer_ms,
          &RunSummary::mean_travel_ms, &RunSummary::mean_overhead_ms, &RunSummary::utilization})
      CHECK(std::memcmp(&(a.*f), &(b.*f), sizeof(double)) == 0);
  }
}

TEST_CASE("a sweep gives the same results on 1 and on 3 threads", "[sim][experiment]") {
  SweepSpec s;
  s.model = "hp97560";
  s.scheds = {"fcfs", "sstf"};
  s.workload = "uniform";
  s.rates = {20, 35, 50, 65};
  s.reps = 3;
  s.cfg.warmup = 100;
  s.cfg.measured = 300;
  s.cfg.max_queue = 300;
  const SweepResult one = run_sweep(s, 1, false);
  const SweepResult three = run_sweep(s, 3, false);
  REQUIRE(one.points.size() == three.points.size());
  for (std::size_t i = 0; i < one.points.size(); ++i) {
    CHECK(one.points[i].ran == three.points[i].ran);
    if (one.points[i].ran)
      CHECK(one.points[i].result.stats.mean_ms.mean == three.points[i].result.stats.mean_ms.mean);
  }
  // FCFS (about 42 requests/s on the HP 97560) saturates at 65/s at the latest, so the
  // rates after its first saturated one are skipped, not run.
  auto f = one.of("fcfs");
  bool seen_saturated = false;
  for (const auto* p : f) {
    if (seen_saturated) CHECK_FALSE(p->ran);
    if (p->ran && p->result.stats.saturated) seen_saturated = true;
  }
  CHECK(seen_saturated);
}

TEST_CASE("sustained rate: linear interpolation at the first crossing", "[sim][experiment]") {
  SweepResult r;
  r.series = {"a"};
  auto add = [&](double rate, double mean, double p95, bool saturated) {
    SweepPoint p;
    p.series = p.sched = "a";
    p.x = p.rate = rate;
    p.ran = true;
    p.result.stats.mean_ms.mean = mean;
    p.result.stats.p95_ms.mean = p95;
    p.result.stats.saturated = saturated;
    r.points.push_back(p);
  };
  add(10, 50, 100, false);
  add(20, 100, 250, false);
  add(30, 400, 1200, false);
  add(40, 0, 0, true);
  // mean 300 ms: between 20 (100) and 30 (400): 20 + 10 * 200/300.
  Sustained s = sustained_rate(r, "a", Metric::Mean, 300);
  CHECK(s.bound == '=');
  CHECK(s.rate == Approx(26.6667).epsilon(1e-4));
  CHECK(sustained_rate(r, "a", Metric::P95, 200).rate == Approx(10 + 10 * 100.0 / 150));
  // Never crossed before saturation: a lower bound at the last good rate.
  Sustained b = sustained_rate(r, "a", Metric::Mean, 1000);
  CHECK(b.bound == '>');
  CHECK(b.rate == 30);
  // Already above at the lowest rate.
  CHECK(sustained_rate(r, "a", Metric::Mean, 10).bound == '<');
}

TEST_CASE("ranges and value substitution", "[sim][experiment]") {
  CHECK(parse_range("10:30:10", "rates") == std::vector<double>{10, 20, 30});
  CHECK(parse_range("5,7.5,9", "rates") == std::vector<double>{5, 7.5, 9});
  CHECK(parse_range("0:1:0.25", "v").size() == 5);
  CHECK_THROWS_WITH(parse_range("10:5:1", "--rates"), Contains("HI >= LO"));
  CHECK_THROWS_WITH(parse_range("a:5:1", "--rates"), Contains("'a' is not a number"));
  CHECK_THROWS_WITH(parse_range("1:2", "--rates"), Contains("LO:HI:STEP"));
  CHECK(substitute_value("asatf:w={}", 30) == "asatf:w=30");
  CHECK(substitute_value("vr:r={}", 0.2) == "vr:r=0.2");
}
