// The demerit on cases worked out by hand.
#include <cmath>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/validate/demerit.hpp"

using namespace disksched;

TEST_CASE("identical distributions: demerit 0, whatever the order", "[validate][demerit]") {
  const std::vector<double> a = {3.0, 1.0, 7.5, 2.0, 9.0};
  const std::vector<double> b = {9.0, 7.5, 3.0, 2.0, 1.0};
  CHECK(demerit(a, b) == 0.0);
  CHECK(demerit_grid(a, b) == 0.0);
}

TEST_CASE("a constant shift d gives d", "[validate][demerit]") {
  const std::vector<double> a = {1.0, 4.0, 2.5, 10.0, 6.0, 3.0};
  std::vector<double> b;
  for (double x : a) b.push_back(x + 0.75);
  CHECK(demerit(a, b) == Approx(0.75).margin(1e-12));
  CHECK(demerit_grid(a, b) == Approx(0.75).margin(1e-12));
  // Also with another number of samples: a has the curve of b shifted by 2.
  CHECK(demerit({0.0, 1.0, 2.0}, {2.0, 4.0}) == Approx(2.0).margin(1e-12));
}

TEST_CASE("two-point cases", "[validate][demerit]") {
  // Q_a(p) = p, Q_b(p) = 0: integral of p^2 is 1/3.
  CHECK(demerit({0.0, 1.0}, {0.0, 0.0}) == Approx(std::sqrt(1.0 / 3.0)).epsilon(1e-12));
  // Q_a(p) = p; Q_b(p) = 0 up to 1/2, then 2p - 1. The difference is p, then 1 - p:
  // 2 * integral over [0, 1/2] of p^2 = 1/12. Only the exact form lands on it exactly.
  CHECK(demerit({0.0, 1.0}, {0.0, 0.0, 1.0}) == Approx(std::sqrt(1.0 / 12.0)).epsilon(1e-12));
  CHECK(demerit_grid({0.0, 1.0}, {0.0, 0.0, 1.0}) == Approx(std::sqrt(1.0 / 12.0)).epsilon(1e-3));
  // The same figure both ways round.
  CHECK(demerit({0.0, 0.0, 1.0}, {0.0, 1.0}) == demerit({0.0, 1.0}, {0.0, 0.0, 1.0}));
}

TEST_CASE("the grid is the mean over p = 1/steps .. 1", "[validate][demerit]") {
  // Q_a(p) = p, Q_b = 0, two steps: p = 0.5 and 1: sqrt((0.25 + 1) / 2).
  CHECK(demerit_grid({0.0, 1.0}, {0.0}, 2) == Approx(std::sqrt(0.625)).epsilon(1e-12));
  // One sample each is a constant curve.
  CHECK(demerit({5.0}, {2.0}) == Approx(3.0));
}

TEST_CASE("demerit refuses empty or NaN samples", "[validate][demerit]") {
  CHECK_THROWS_AS(demerit({}, {1.0}), std::invalid_argument);
  CHECK_THROWS_AS(demerit({1.0}, {}), std::invalid_argument);
  CHECK_THROWS_AS(demerit({1.0, std::nan("")}, {1.0}), std::invalid_argument);
  CHECK_THROWS_AS(demerit_grid({1.0}, {1.0}, 0), std::invalid_argument);
}

TEST_CASE("the exact demerit is the limit of ever finer grids", "[validate][demerit]") {
  // Samples of different counts and shapes; a grid of 200000 steps lands within a
  // 1e-3 of the range (the piecewise-linear difference is sampled, not integrated).
  std::vector<double> a, b;
  unsigned x = 12345;
  auto next = [&] { return (x = x * 1103515245u + 12345u) % 10000 / 100.0; };
  for (int i = 0; i < 37; ++i) a.push_back(next());
  for (int i = 0; i < 101; ++i) b.push_back(next() * 0.8 + 5.0);
  const double exact = demerit(a, b);
  CHECK(exact > 1.0);
  CHECK(demerit_grid(a, b, 200000) == Approx(exact).margin(1e-3));
}

TEST_CASE("DiskSim's histogram figure counts whole microseconds in 1%-wider buckets",
          "[validate][demerit]") {
  // Below 100 us the buckets are 1 us wide: 10.5 us spreads over [10, 11) us, 20.5 over
  // [20, 21); the curves are parallel, 10 us apart.
  CHECK(demerit_histogram({0.0105}, {0.0205}) == Approx(0.010).epsilon(1e-9));
  CHECK(demerit_histogram({0.0105, 0.0205}, {0.0105, 0.0205}) == 0.0);
  // 0.009 ms is 0.00899999... in binary: DiskSim's arithmetic makes it 8 us, the bucket
  // of 8.5 us (rounding it to 9 us would put the curves 1 us apart).
  CHECK(demerit_histogram({0.009}, {0.0085}) == 0.0);
  CHECK(demerit_histogram({0.0095}, {0.0085}) == Approx(0.001).epsilon(1e-9));
  // Past 100 us a bucket is 1% of its edge wide, so samples within one bucket are one:
  // 10 ms and 10.05 ms share [9.969, 10.069) ms (edges ..., 9969, 10069, 10170, ... us).
  CHECK(demerit_histogram({10.0}, {10.05}) == 0.0);
  CHECK(demerit({10.0}, {10.05}) == Approx(0.05));
  // 10.1 ms is in the next bucket, 0.101 ms wide: the curves are 0.100 + 0.001 p apart.
  const double next = demerit_histogram({10.0}, {10.1});
  CHECK(next > 0.100);
  CHECK(next < 0.101);
  CHECK_THROWS_AS(demerit_histogram({}, {1.0}), std::invalid_argument);
}
