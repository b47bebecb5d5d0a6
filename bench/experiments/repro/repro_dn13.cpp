// `disksched repro dn13`: Deodhar & Naik 2013, SSWT against SSTF (by LBN).
//
// DN measured a Linux 3.9 kernel booting in a VM: we cannot replay that, so the
// workload is a documented synthetic stand-in with what a boot's I/O looks like in
// their logs (sec. 6): bursts of requests close together on the disk (sectors
// 26962168..26963960 within microseconds), some sequential, arriving faster than the
// disk serves them, so the queue holds hundreds of requests and wait counts reach
// the hundreds. `burst:len=64,span=8m,p=0.8,size=4k,reads=0.95` at a rate that
// keeps the HP 97560 about 75% busy under SSTF by LBN. DN's metrics: average delay (arrival to
// dispatch), total seek distance in LBNs, average response time; their threshold
// sweep is 0..800 in steps of 100 (they chose 600).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <mutex>

#include <fmt/format.h>

#include "bench/experiments/repro/claims.hpp"
#include "bench/experiments/sweep/experiment.hpp"
#include "bench/experiments/sweep/job_pool.hpp"
#include "bench/experiments/repro/repro.hpp"
#include "bench/experiments/sweep/sweep.hpp"
#include "common/regular_file.hpp"

namespace disksched {

namespace {

constexpr const char* kModel = "hp97560";
constexpr const char* kWorkload = "burst:len=64,span=8m,p=0.8,size=4k,reads=0.95";

// DN's three metrics for one run.
struct DnMetrics {
  double delay_ms = 0;     // arrival to dispatch
  double response_ms = 0;
  double seek_lbn = 0;     // sum of |start LBN - previous end LBN| in dispatch order
  bool saturated = false;
};

DnMetrics measure(const DeviceModel& model, const Workload& w, const std::string& sched,
                  double rate, std::uint64_t seed, const SimConfig& cfg) {
  SimResult r;
  RunSummary s = run_once(model, w, sched, rate, seed, cfg, &r);
  DnMetrics m;
  m.delay_ms = s.mean_delay_ms;
  m.response_ms = s.mean_ms;
  m.saturated = s.saturated;
  auto recs = r.measured;
  std::sort(recs.begin(), recs.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.start_ms < b.start_ms; });
  const std::uint32_t sb = model.sector_bytes();
  for (std::size_t i = 1; i < recs.size(); ++i) {
    const double prev_end = static_cast<double>((recs[i - 1].offset + recs[i - 1].length) / sb);
    const double start = static_cast<double>(recs[i].offset / sb);
    m.seek_lbn += std::fabs(start - prev_end);
  }
  return m;
}

// DN's claims (sec. 6) that are rows: SSWT(600) against SSTF by LBN.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"  // rows leave defaults out
const std::vector<ClaimRow> kClaims = {
    {.id = "dn-delay",
     .claim = "SSWT(600) average delay vs SSTF",
     .theirs = "-10%",
     .tolerance = "-10% +- 5 points",
     .check = ChangeCheck{.value = "delay 600", .min = -0.15, .max = -0.05}},
    {.id = "dn-response",
     .claim = "SSWT(600) average response time vs SSTF",
     .theirs = "-10%",
     .tolerance = "-10% +- 5 points",
     .check = ChangeCheck{.value = "response 600", .min = -0.15, .max = -0.05}},
    {.id = "dn-seek",
     .claim = "SSWT(600) total seek distance vs SSTF",
     .theirs = "+0.52%",
     .tolerance = "0 to +2%",
     .check = ChangeCheck{.value = "seek 600", .min = 0, .max = 0.02}},
    // "values greater than 600 result in the algorithm performing as pure SSTF"
    {.id = "dn-sweep-high",
     .claim = "above 600 SSWT performs as pure SSTF (delay at 800 vs SSTF)",
     .theirs = "same",
     .tolerance = "within 2%",
     .check = ChangeCheck{.value = "delay 800", .min = -0.02, .max = 0.02}},
};
#pragma GCC diagnostic pop

// DN chose 600 as the threshold with the lowest average delay (0..800 by 100).
Claim lowest_delay_threshold(double best) {
  return {"dn-sweep-min", "threshold with the lowest average delay (0..800 by 100)", "600",
          fmt::format("{:g}", best), "600 +- 100",
          std::fabs(best - 600) <= 100 ? Verdict::Agree : Verdict::Disagree, ""};
}

}  // namespace

std::vector<Claim> repro_dn13(const ReproOptions& o) {
  const std::size_t reps = o.quick ? std::min<std::size_t>(o.reps, 3) : o.reps;
  const Workload w = Workload::parse(kWorkload);
  SimConfig cfg;
  cfg.warmup = 1000;
  cfg.measured = o.quick ? 3000 : 10000;  // DN report averages at 7000-12000 requests
  cfg.max_queue = 20000;
  // The rate: one at which SSTF by LBN keeps the disk about 75% busy on this very
  // workload, scaled from its utilization at a probe rate (measured, not assumed).
  // Busier than that, SSTF by LBN stops keeping up: walking sequential runs backwards
  // costs it a rotation per request, so its service time grows with the queue.
  auto model = load_model(kModel);
  constexpr double kProbeRate = 60.0, kTargetUtilization = 0.75;
  double probe_util = 0;
  {
    SimConfig c = cfg;
    c.measured = 5000;
    probe_util = run_once(*model, w, "sstf:by=lbn", kProbeRate, o.seed, c).utilization;
  }
  const double rate = kProbeRate * kTargetUtilization / probe_util;

  std::vector<double> thresholds;
  for (int t = 0; t <= 800; t += 100) thresholds.push_back(t);
  std::vector<std::string> scheds = {"sstf:by=lbn"};
  for (double t : thresholds) scheds.push_back(fmt::format("sswt:threshold={}", t));

  std::vector<std::vector<DnMetrics>> results(scheds.size(), std::vector<DnMetrics>(reps));
  JobPool pool(o.threads, "repro dn13", scheds.size() * reps, !o.quiet);
  for (std::size_t i = 0; i < scheds.size(); ++i)
    for (std::size_t rep = 0; rep < reps; ++rep)
      pool.submit([&, i, rep](Worker& wk) {
        results[i][rep] = measure(wk.model(kModel), w, scheds[i], rate,
                                  replication_seed(o.seed, rep), cfg);
      });
  pool.wait();

  struct Row {
    Estimate delay, response, seek;
    bool saturated = false;
  };
  std::vector<Row> rows;
  for (const auto& per : results) {
    std::vector<double> d, r, s;
    Row row;
    for (const auto& m : per) {
      d.push_back(m.delay_ms);
      r.push_back(m.response_ms);
      s.push_back(m.seek_lbn);
      row.saturated = row.saturated || m.saturated;
    }
    row.delay = replicate(d);
    row.response = replicate(r);
    row.seek = replicate(s);
    rows.push_back(row);
  }

  std::filesystem::create_directories(o.out_dir);
  {
    std::ostringstream f;
    f << "sched,threshold,delay_ms,ci95_delay_ms,response_ms,ci95_response_ms,seek_lbn,saturated\n";
    std::cout << fmt::format("\nDN threshold sweep: {} at {:.1f} requests/s on {} ({} reps x {} requests)\n",
                             w.spec(), rate, kModel, reps, cfg.measured);
    std::cout << fmt::format("  {:<22} {:>18} {:>18} {:>16}\n", "scheduler", "avg delay ms",
                             "avg response ms", "seek (LBN)");
    for (std::size_t i = 0; i < scheds.size(); ++i) {
      const Row& x = rows[i];
      f << scheds[i] << ',' << (i == 0 ? std::string("") : fmt::format("{}", thresholds[i - 1]))
        << ',' << x.delay.mean << ',' << x.delay.half_width << ',' << x.response.mean << ','
        << x.response.half_width << ',' << x.seek.mean << ',' << (x.saturated ? 1 : 0) << '\n';
      std::cout << fmt::format("  {:<22} {:>9.1f} +- {:<5.1f} {:>9.1f} +- {:<5.1f} {:>16.4g}{}\n",
                               scheds[i], x.delay.mean, x.delay.half_width, x.response.mean,
                               x.response.half_width, x.seek.mean, x.saturated ? " saturated" : "");
    }
    replace_file(o.out_dir + "/threshold_sweep.csv", f.str());
  }
  if (!o.no_plot)
    run_python("plot_dn13.py", {"--csv", o.out_dir + "/threshold_sweep.csv", "--out",
                                o.out_dir + "/threshold_sweep.png"});

  // Relative changes against SSTF by LBN (rows[0]); rows[1 + k] is threshold 100 k.
  const Row& sstf = rows[0];
  const Row& s600 = rows[1 + 6];
  ClaimInputs in;
  in.values = {{"delay 600", s600.delay.mean / sstf.delay.mean - 1},
               {"response 600", s600.response.mean / sstf.response.mean - 1},
               {"seek 600", s600.seek.mean / sstf.seek.mean - 1},
               {"delay 800", rows.back().delay.mean / sstf.delay.mean - 1}};
  std::size_t best = 1;
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].delay.mean < rows[best].delay.mean) best = i;
  std::vector<Claim> claims = evaluate(kClaims, in);
  // Printed before dn-sweep-high, the table's last row, as it always was.
  claims.insert(claims.end() - 1, lowest_delay_threshold(thresholds[best - 1]));
  return claims;
}

}  // namespace disksched
