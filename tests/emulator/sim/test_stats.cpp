// Statistics: Student-t quantiles, the method of replications, percentiles and JW's
// 200-bin histogram estimate.
#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/experiments/workload/workload.hpp"
#include "emulator/sim/stats.hpp"

using namespace disksched;

TEST_CASE("student t quantiles match the published table", "[sim][stats]") {
  // Two-sided 95%: t_{0.975, df}, from any statistics table.
  CHECK(student_t_quantile(0.975, 1) == Approx(12.7062).epsilon(1e-5));
  CHECK(student_t_quantile(0.975, 4) == Approx(2.776445).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 19) == Approx(2.093024).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 1000) == Approx(1.962339).epsilon(1e-6));
  CHECK(student_t_quantile(0.025, 4) == Approx(-2.776445).epsilon(1e-6));
  CHECK(student_t_quantile(0.95, 9) == Approx(1.833113).epsilon(1e-6));
  // More of the table (now computed by Boost.Math).
  CHECK(student_t_quantile(0.995, 2) == Approx(9.924843).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 30) == Approx(2.042272).epsilon(1e-6));
  CHECK(student_t_quantile(0.5, 7) == 0.0);
  CHECK_THROWS_AS(student_t_quantile(1.0, 4), std::invalid_argument);
  CHECK_THROWS_AS(student_t_quantile(0.9, 0), std::invalid_argument);
}

TEST_CASE("replications: mean and 95% half-width by hand", "[sim][stats]") {
  // x = 1..5: mean 3, s = sqrt(2.5) = 1.581139, t_{0.975,4} = 2.776445,
  // half-width = 2.776445 * 1.581139 / sqrt(5) = 1.963243.
  Estimate e = replicate(std::vector<double>{1, 2, 3, 4, 5});
  CHECK(e.n == 5);
  CHECK(e.mean == Approx(3.0));
  CHECK(e.half_width == Approx(1.963243).epsilon(1e-6));
  // 90%: t_{0.95,4} = 2.131847 -> 1.507443.
  CHECK(replicate(std::vector<double>{1, 2, 3, 4, 5}, 0.90).half_width ==
        Approx(1.507443).epsilon(1e-6));
  // One value: no interval.
  CHECK(std::isnan(replicate(std::vector<double>{7}).half_width));
}

TEST_CASE("exact percentiles interpolate between order statistics", "[sim][stats]") {
  std::vector<double> v{10, 20, 30, 40, 50};
  CHECK(percentile_sorted(v, 0.0) == 10);
  CHECK(percentile_sorted(v, 1.0) == 50);
  CHECK(percentile_sorted(v, 0.5) == 30);
  CHECK(percentile_sorted(v, 0.95) == Approx(48.0));  // position 3.8
}

TEST_CASE("JW's histogram p95 is within one bin of the exact p95", "[sim][stats]") {
  Rng rng(42);
  std::vector<double> xs;
  for (int i = 0; i < 20000; ++i) xs.push_back(rng.exponential(25.0));
  const double hist = histogram_percentile(xs, 0.95, 200);
  std::vector<double> sorted = xs;
  std::sort(sorted.begin(), sorted.end());
  const double exact = percentile_sorted(sorted, 0.95);
  const double bin = sorted.back() / 200.0;
  CHECK(std::fabs(hist - exact) <= bin);
  // And both near the distribution's own p95 = 25 ln 20 = 74.89.
  CHECK(exact == Approx(74.89).epsilon(0.04));
  // A step distribution: 95% at 1, 5% at 100; bins of 0.5, so 1.0 lies in [1.0, 1.5).
  std::vector<double> step(950, 1.0);
  step.insert(step.end(), 50, 100.0);
  CHECK(histogram_percentile(step, 0.95, 200) == Approx(1.5));  // end of the bin holding 1.0
}

TEST_CASE("a run's percentiles are the sorted responses' exactly", "[sim][stats]") {
  // summarize() selects instead of sorting: the same figures, bit for bit.
  Rng rng(7);
  for (std::size_t n : {1u, 2u, 3u, 20u, 101u, 2000u}) {
    SimResult r;
    std::vector<double> resp;
    for (std::size_t i = 0; i < n; ++i) {
      RequestRecord x;
      x.arrival_ms = rng.exponential(10.0);
      x.completion_ms = x.arrival_ms + rng.exponential(25.0);
      resp.push_back(x.response_ms());
      r.measured.push_back(x);
    }
    std::sort(resp.begin(), resp.end());
    const RunSummary s = summarize(r);
    CHECK(s.p95_ms == percentile_sorted(resp, 0.95));
    CHECK(s.p99_ms == percentile_sorted(resp, 0.99));
    CHECK(s.max_ms == resp.back());
  }
}
