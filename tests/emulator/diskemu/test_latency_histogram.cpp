// The lateness histogram: exact below 128 ns, within 1/64 above, percentiles by rank.
#include <random>

#include <catch2/catch.hpp>

#include "emulator/diskemu/latency_histogram.hpp"

using disksched::diskemu::LatencyHistogram;

TEST_CASE("buckets cover every value once, with bounded relative width", "[diskemu][histogram]") {
  for (std::int64_t v = 0; v < 128; ++v) CHECK(LatencyHistogram::bucket_of(v) == v);
  int prev = LatencyHistogram::bucket_of(127);
  for (std::int64_t v = 128; v < 1'000'000; ++v) {
    const int b = LatencyHistogram::bucket_of(v);
    REQUIRE((b == prev || b == prev + 1));
    REQUIRE(LatencyHistogram::upper_bound(b) >= v);
    REQUIRE((b == 0 || LatencyHistogram::upper_bound(b - 1) < v));
    REQUIRE(LatencyHistogram::upper_bound(b) - v <= v / 64);
    prev = b;
  }
}

TEST_CASE("percentiles by rank", "[diskemu][histogram]") {
  LatencyHistogram h;
  CHECK(h.percentile(0.5) == 0);
  for (int v = 1; v <= 100; ++v) h.record(v);
  CHECK(h.count() == 100);
  CHECK(h.percentile(0.50) == 50);
  CHECK(h.percentile(0.99) == 99);
  CHECK(h.percentile(1.0) == 100);
  CHECK(h.max() == 100);
  CHECK(h.min() == 1);
  CHECK(h.mean() == Approx(50.5));
}

TEST_CASE("large values: within 1/64, never below the true percentile", "[diskemu][histogram]") {
  LatencyHistogram h;
  std::vector<std::int64_t> values;
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> d(9.0, 1.5);   // around 8 us, long tail
  for (int i = 0; i < 100'000; ++i) {
    const auto v = static_cast<std::int64_t>(d(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const std::int64_t truth = values[static_cast<std::size_t>(std::ceil(q * values.size())) - 1];
    const std::int64_t got = h.percentile(q);
    CHECK(got >= truth);
    CHECK(got <= truth + truth / 64);
  }
  CHECK(h.percentile(1.0) == values.back());
  CHECK(h.max() == values.back());
}
