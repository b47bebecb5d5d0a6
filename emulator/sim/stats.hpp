// Statistics of simulation runs: one run's summary (JW sec. 6 and Hong sec. 7
// metrics) and the method of replications (Pawlikowski 1990, as JW use it): K
// independent runs, the mean of their per-run values, and a Student-t confidence
// interval with K - 1 degrees of freedom.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "emulator/sim/measured_sample.hpp"
#include "emulator/sim/simulator.hpp"

namespace disksched {

// Percentile q in [0, 1] of `sorted` (ascending) by linear interpolation between
// order statistics (Hyndman & Fan type 7: position q (n - 1)). NaN when empty.
double percentile_sorted(const std::vector<double>& sorted, double q);

// JW's estimate: a histogram of `bins` equal bins over [0, max(xs)], the percentile
// found by linear interpolation inside the bin where the cumulative count reaches
// q n. Within one bin width (max / bins) of the exact value. NaN when empty.
double histogram_percentile(const std::vector<double>& xs, double q, std::size_t bins = 200);

// The two-sided Student-t quantile: P(T <= t) = p for df degrees of freedom (df > 0).
double student_t_quantile(double p, double df);

// A mean over replications with the half-width of its confidence interval
// (NaN when fewer than 2 values).
struct Estimate {
  double mean = 0.0;
  double half_width = 0.0;
  std::size_t n = 0;
};
Estimate replicate(const std::vector<double>& values, double confidence = 0.95);

// One run's measured requests, summarised.
struct RunSummary {
  std::size_t requests = 0;        // measured requests completed
  double throughput_per_s = 0.0;   // completions (any phase) per second in the measurement window
  double mean_ms = 0.0;            // response time = completion - arrival
  double std_ms = 0.0;             // sample standard deviation
  double sq_cv = 0.0;              // squared coefficient of variation, std^2 / mean^2 (Hong)
  double p95_ms = 0.0;             // exact (type 7)
  double p95_hist_ms = 0.0;        // JW's 200-bin histogram estimate
  double p99_ms = 0.0;
  double max_ms = 0.0;
  double mean_wait_ms = 0.0;       // arrival to start of service
  double mean_delay_ms = 0.0;      // arrival to dispatch (DN's "average delay")
  double mean_service_ms = 0.0;
  double mean_queue_len = 0.0;     // requests the scheduler chose among, at dispatch
  double mean_seek_ms = 0.0;       // includes settle / head switch
  double mean_rotation_ms = 0.0;
  double mean_transfer_ms = 0.0;
  double mean_travel_ms = 0.0;     // the scheduler's stops before requests (SCAN, C-SCAN)
  double mean_overhead_ms = 0.0;   // command overhead + completion report
  double utilization = 0.0;        // device busy fraction of the measurement window
  bool saturated = false;
};

RunSummary summarize(const SimResult& r);

// summarize(r) from the measured requests' samples in seq order instead of r.measured:
// the same summary, bit for bit, as from the records they were taken from.
RunSummary summarize(const SimResult& r, const std::vector<MeasuredSample>& measured);

// K runs of one configuration, each metric as a mean over the runs with a 95% CI.
struct Replicated {
  std::size_t reps = 0;
  std::size_t requests = 0;        // measured requests over all runs
  bool saturated = false;          // any run saturated
  Estimate throughput_per_s, mean_ms, std_ms, sq_cv, p95_ms, p95_hist_ms, p99_ms, max_ms,
      mean_wait_ms, mean_delay_ms, mean_service_ms, mean_queue_len, mean_seek_ms,
      mean_rotation_ms, mean_transfer_ms, mean_travel_ms, mean_overhead_ms, utilization;
};

Replicated replicate(const std::vector<RunSummary>& runs);

}  // namespace disksched
