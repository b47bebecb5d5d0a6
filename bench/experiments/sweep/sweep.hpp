// Sweeps: many experiment points run in parallel, written as CSV and plotted.
//
// A rate sweep runs each scheduler at each arrival rate (JW Fig. 10); a parameter
// sweep runs scheduler specs with a "{}" placeholder at each value of a parameter
// at one rate (JW Fig. 12: ASATF(w) at 70 requests/s). Once every replication of a
// rate is done and one of them saturated, the scheduler's higher rates are skipped
// (they would saturate too): the decision depends only on results, so the output
// is the same for any number of threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench/experiments/sweep/experiment.hpp"
#include "bench/experiments/sweep/job_pool.hpp"
#include "bench/experiments/workload/workload.hpp"

namespace disksched {

struct SweepSpec {
  std::string model = "hp97560";
  std::vector<std::string> scheds;  // registry specs; "{}" is replaced by each of `values`
  std::string workload = "uniform";
  std::vector<double> rates;        // a rate sweep's x axis; a parameter sweep's one rate
  std::vector<double> values;       // non-empty: a parameter sweep over these values
  std::string param = "w";          // the swept parameter's name (axis label)
  std::size_t reps = 20;
  std::uint64_t seed = 1;
  SimConfig cfg;
  bool stop_at_saturation = true;
};

struct SweepPoint {
  std::string series;  // the scheduler spec as given (with "{}" in a parameter sweep)
  std::string sched;   // the spec run
  double x = 0.0;      // the rate, or the parameter value
  double rate = 0.0;
  bool ran = false;    // false: skipped after a saturated lower rate
  PointResult result;
  bool saturated() const { return !ran || result.stats.saturated; }
};

struct SweepResult {
  SweepSpec spec;
  std::string workload;                // canonical
  bool param_sweep = false;
  std::vector<std::string> series;     // in the order given
  std::vector<SweepPoint> points;      // by series, then x ascending
  std::vector<const SweepPoint*> of(const std::string& series) const;
  const SweepPoint* at(const std::string& series, double x) const;
};

// A sweep in flight on a JobPool: start() submits its jobs, and after pool.wait()
// result() assembles them.
class Sweep {
 public:
  explicit Sweep(SweepSpec spec);
  ~Sweep();
  Sweep(const Sweep&) = delete;
  Sweep& operator=(const Sweep&) = delete;
  std::size_t planned_runs() const;
  void start(JobPool& pool);
  SweepResult result() const;

 private:
  struct Slot;
  void submit_point(JobPool& pool, std::size_t series, std::size_t xi);
  void point_done(JobPool& pool, std::size_t series, std::size_t xi);

  SweepSpec spec_;
  Workload workload_;
  std::vector<double> xs_;
  std::vector<std::unique_ptr<Slot>> slots_;  // series-major
};

// Runs one sweep on its own pool (threads 0: every core).
SweepResult run_sweep(const SweepSpec& spec, std::size_t threads = 0, bool progress = true);

// `tmpl` with its first "{}" replaced by `value` ("asatf:w={}", 30 -> "asatf:w=30").
std::string substitute_value(const std::string& tmpl, double value);

// Rates: "LO:HI:STEP" (inclusive) or "A,B,C".
std::vector<double> parse_range(const std::string& text, const std::string& what);

void write_csv(const SweepResult& r, const std::string& path);

// JW's ranking metric (footnote 7): the arrival rate a scheduler sustains with a
// response-time metric at or below `target_ms`, interpolated linearly between the
// rates around the first crossing.
struct Sustained {
  double rate = 0.0;
  // '=' interpolated; '>' at least `rate` (never crossed in the range, or the next
  // rate saturated); '<' already above the target at the lowest rate.
  char bound = '=';
  std::string text() const;
};
enum class Metric { Mean, P95 };
Sustained sustained_rate(const SweepResult& r, const std::string& series, Metric m,
                         double target_ms);

// The table of sustained rates for every series and target, as text; also written
// as CSV to `csv_path` when non-empty.
std::string sustained_table(const SweepResult& r, const std::vector<double>& mean_targets_ms,
                            const std::vector<double>& p95_targets_ms,
                            const std::string& csv_path = "");

// Where the plotting scripts live: $DISKSCHED_SCRIPTS, else the source tree's bench/experiments/plots.
std::string script_dir();
// Runs /usr/bin/python3 SCRIPT ARGS...; returns false (and says why on stderr) when
// the plot could not be made: a missing plot never fails an experiment.
bool run_python(const std::string& script, const std::vector<std::string>& args);
// Plots a sweep CSV: mean and p95 against rate (Fig. 10 style) or mean, std and p95
// against the parameter (Fig. 12 style). Returns the PNG paths written.
std::vector<std::string> plot_sweep(const SweepResult& r, const std::string& csv_path,
                                    const std::string& out_prefix, const std::string& title);

}  // namespace disksched
