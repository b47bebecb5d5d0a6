// The sled's mechanics: settle, Hong's closed forms against numerical integration of the
// equation of motion, the fast path against the closed forms, symmetries.
#include <cmath>
#include <numbers>
#include <random>

#include <catch2/catch.hpp>

#include "predictor/mems/mems_model.hpp"
#include "predictor/mems/mems_sled.hpp"
#include "tests/predictor/mems/sled_integrator.hpp"

using namespace disksched;

namespace {

// The y seek as one bang-bang trajectory, integrated numerically: its base direction is
// towards the target (or, with no distance, the arrival direction); the switch point is
// eq. 2 for the base seek between the two positions.
mems_test::Trajectory integrate_y(const MemsSled& s, double y0, int d0, double y1, int d1) {
  const double p0 = s.y_offset_m(y0), p1 = s.y_offset_m(y1);
  const int sigma = p1 > p0 ? 1 : p1 < p0 ? -1 : d1;
  const double ym = s.switch_point_m(std::min(p0, p1), std::max(p0, p1), s.omega2_y());
  const double v = s.access_speed_m_s();
  return mems_test::integrate_bang_bang(p0, d0 * v, sigma, ym, d1 * v, s.accel_m_s2(), s.omega2_y());
}

mems_test::Trajectory integrate_x(const MemsSled& s, std::int64_t x0, std::int64_t x1) {
  const double p0 = s.x_offset_m(x0), p1 = s.x_offset_m(x1);
  const int sigma = p1 > p0 ? 1 : -1;
  const double xm = s.switch_point_m(std::min(p0, p1), std::max(p0, p1), s.omega2_x());
  return mems_test::integrate_bang_bang(p0, 0.0, sigma, xm, 0.0, s.accel_m_s2(), s.omega2_x());
}

const MemsParams kHong = MemsParams::hong2003();

}  // namespace

TEST_CASE("x settle time is 1 / (2 pi 739 Hz) = 0.215 ms (Hong sec. 7.2)", "[mems]") {
  const MemsSled s(kHong);
  CHECK(s.settle_ms() == Approx(1000.0 / (2 * std::numbers::pi * 739.0)).epsilon(1e-12));
  CHECK(s.settle_ms() == Approx(0.215).margin(0.0005));
  // Settle is paid in x only, and only when x changes.
  CHECK(s.x_seek_ms(100, 100) == 0.0);
  CHECK(s.x_seek_ms(100, 101) > s.settle_ms());
  CHECK(s.x_seek_ms(100, 101) < s.settle_ms() + 0.02);
  CHECK(s.y_seek_ms(1000, +1, 1001, +1) < 0.01);
  // Two time constants double it (DiskSim's G1 setting).
  MemsParams p = kHong;
  p.settle_time_constants = 2;
  CHECK(MemsSled(p).settle_ms() == Approx(2 * s.settle_ms()));
}

TEST_CASE("closed-form x seek (eqs. 2, 5) matches integrating m x'' = +-F - k x within 1e-9 ms", "[mems]") {
  for (double sf : {0.75, 0.375, 0.0}) {
    const MemsSled s(kHong, sf);
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::int64_t> col(0, kHong.bits_x - 1);
    double worst_ms = 0, worst_pos_bits = 0;
    for (int i = 0; i < 120; ++i) {
      std::int64_t x0 = col(rng), x1 = col(rng);
      if (i < 4) {  // extremes: full stroke both ways, adjacent columns at an edge
        x0 = i < 2 ? 0 : kHong.bits_x - 2;
        x1 = i == 0 ? kHong.bits_x - 1 : i == 1 ? 1 : kHong.bits_x - 1;
        if (i == 3) std::swap(x0, x1);
      }
      if (x0 == x1) continue;
      const auto tr = integrate_x(s, x0, x1);
      const double eq_ms = s.x_seek_eq_ms(x0, x1) - s.settle_ms();
      worst_ms = std::max(worst_ms, std::abs(1000 * tr.time_s - eq_ms));
      // Eq. 2's switch point brings the sled to rest exactly on the target.
      worst_pos_bits = std::max(worst_pos_bits, std::abs(tr.end_m - s.x_offset_m(x1)) / 40e-9);
    }
    INFO("spring factor " << sf << ": worst time error " << worst_ms << " ms, worst landing error "
                          << worst_pos_bits << " bits");
    CHECK(worst_ms < 1e-9);
    CHECK(worst_pos_bits < 1e-6);
  }
}

TEST_CASE("closed-form y seek (eq. 6 + turnarounds) matches integrating the motion within 1e-9 ms", "[mems]") {
  for (double sf : {0.75, 0.375, 0.0}) {
    const MemsSled s(kHong, sf);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> ybit(0, static_cast<int>(kHong.bits_y));
    std::uniform_int_distribution<int> coin(0, 1);
    double worst_ms = 0, worst_pos_bits = 0;
    int cases[3] = {0, 0, 0};
    for (int i = 0; i < 160; ++i) {
      double y0 = ybit(rng), y1 = ybit(rng);
      const int d0 = coin(rng) ? 1 : -1, d1 = coin(rng) ? 1 : -1;
      if (i % 20 == 0) y1 = y0 + (y0 < 2000 ? 1 : -1);  // one bit
      if (i % 37 == 0) { y0 = 0; y1 = kHong.bits_y; }   // full stroke
      if (y0 == y1 && d0 == d1) continue;
      ++cases[MemsSled::turnarounds(y0, d0, y1, d1)];
      const auto tr = integrate_y(s, y0, d0, y1, d1);
      worst_ms = std::max(worst_ms, std::abs(1000 * tr.time_s - s.y_seek_eq_ms(y0, d0, y1, d1)));
      worst_pos_bits = std::max(worst_pos_bits, std::abs(tr.end_m - s.y_offset_m(y1)) / 40e-9);
    }
    INFO("spring factor " << sf << ": worst time error " << worst_ms << " ms, worst landing error "
                          << worst_pos_bits << " bits");
    CHECK(cases[0] > 10);
    CHECK(cases[1] > 10);
    CHECK(cases[2] > 10);
    CHECK(worst_ms < 1e-9);
    CHECK(worst_pos_bits < 1e-6);
  }
}

TEST_CASE("turnaround in closed form matches integration and the springs' sign", "[mems]") {
  const MemsSled s(kHong);
  for (double y : {0.0, 300.0, 1200.0, 2100.0, 2400.0}) {
    for (int d : {+1, -1}) {
      // Reverse d * v at y: force -d * a until the velocity is -d * v.
      const double p = s.y_offset_m(y), v = s.access_speed_m_s();
      const auto tr = mems_test::integrate_bang_bang(p, d * v, -d, p, -d * v, s.accel_m_s2(), s.omega2_y());
      // The switch point is the start: phase 1 ends when the sled is back on it moving
      // -d, and phase 2 at once, so the integrated time is the turnaround.
      CHECK(1000 * tr.time_s == Approx(s.turnaround_eq_ms(y, d)).margin(1e-7));
      CHECK(s.turnaround_ms(y, d) == Approx(s.turnaround_eq_ms(y, d)).margin(1e-9));
    }
  }
  // Without springs: 2 v / a.
  CHECK(MemsSled(kHong, 0.0).turnaround_ms(0, +1) == Approx(2000 * 0.028 / 803.6));
  // Moving outwards the spring helps stop the sled; moving inwards from an edge it hurts.
  CHECK(s.turnaround_ms(2400, +1) < s.turnaround_ms(1200, +1));
  CHECK(s.turnaround_ms(0, +1) > s.turnaround_ms(1200, +1));
  CHECK(s.turnaround_ms(0, -1) == Approx(s.turnaround_ms(2400, +1)).epsilon(1e-12));
}

TEST_CASE("fast path equals Hong's closed forms within 1e-6 ms", "[mems]") {
  for (double sf : {0.75, 0.375, 0.0}) {
    for (const MemsParams& p : {MemsParams::hong2003(), MemsParams::table1()}) {
      const MemsSled s(p, sf);
      std::mt19937_64 rng(3);
      std::uniform_int_distribution<std::int64_t> col(0, p.bits_x - 1);
      std::uniform_int_distribution<int> ybit(0, static_cast<int>(p.bits_y));
      std::uniform_int_distribution<int> coin(0, 1);
      double worst = 0;
      for (int i = 0; i < 200000; ++i) {
        const std::int64_t x0 = col(rng), x1 = i % 10 == 0 ? x0 + (x0 + 1 < p.bits_x ? 1 : -1) : col(rng);
        const double y0 = ybit(rng), y1 = i % 7 == 0 ? std::min<double>(y0 + 1, p.bits_y) : ybit(rng);
        const int d0 = coin(rng) ? 1 : -1, d1 = coin(rng) ? 1 : -1;
        worst = std::max(worst, std::abs(s.seek_ms(x0, y0, d0, x1, y1, d1) -
                                         s.seek_eq_ms(x0, y0, d0, x1, y1, d1)));
        worst = std::max(worst, std::abs(s.y_seek_ms(y0, d0, y1, d1) - s.y_seek_eq_ms(y0, d0, y1, d1)));
      }
      // Positions between whole bits take the untabulated path and must agree as well.
      for (int i = 0; i < 2000; ++i) {
        const double y0 = ybit(rng) * 0.999, y1 = ybit(rng) * 0.9991;
        worst = std::max(worst, std::abs(s.y_seek_ms(y0, 1, y1, -1) - s.y_seek_eq_ms(y0, 1, y1, -1)));
      }
      INFO(p.name << " spring factor " << sf << ": worst difference " << worst << " ms");
      CHECK(worst < 1e-6);
    }
  }
}

TEST_CASE("the arcsine table is within 5e-8 rad of asin", "[mems]") {
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    const double z = i / 200000.0;
    worst = std::max(worst, std::abs(mems_asin_fast(z) - std::asin(z)));
  }
  CHECK(worst < 5e-8);
}

TEST_CASE("seeks are symmetric where physics says so, asymmetric where directions differ", "[mems]") {
  const MemsSled s(kHong);
  const double n = static_cast<double>(kHong.bits_y);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::int64_t> col(0, kHong.bits_x - 1);
  std::uniform_int_distribution<int> ybit(0, static_cast<int>(kHong.bits_y));
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t x0 = col(rng), x1 = col(rng);
    // t_x: rest to rest, the reverse trajectory is the time reversal.
    CHECK(s.x_seek_ms(x0, x1) == Approx(s.x_seek_ms(x1, x0)).epsilon(1e-12));
    const double a = ybit(rng), b = ybit(rng);
    const double lo = std::min(a, b), hi = std::max(a, b);
    if (lo == hi) continue;
    // Forward base seek up = the same base seek down, reversed in time.
    CHECK(s.y_seek_ms(lo, +1, hi, +1) == Approx(s.y_seek_ms(hi, -1, lo, -1)).epsilon(1e-12));
    // Mirror image through the sled's centre.
    CHECK(s.y_seek_ms(a, +1, b, -1) == Approx(s.y_seek_ms(n - a, -1, n - b, +1)).epsilon(1e-9));
    // The same two positions in the other order: backwards costs two turnarounds more.
    const double fwd = s.y_seek_ms(lo, +1, hi, +1), back = s.y_seek_ms(hi, +1, lo, +1);
    CHECK(back == Approx(fwd + s.turnaround_ms(hi, +1) + s.turnaround_ms(lo, -1)).epsilon(1e-9));
    CHECK(back > fwd + 2 * s.turnaround_ms(n, +1) - 1e-12);
    // Changing direction on the way costs exactly one turnaround, at the far end...
    CHECK(s.y_seek_ms(lo, +1, hi, -1) == Approx(fwd + s.turnaround_ms(hi, +1)).epsilon(1e-9));
    // ... or at the start.
    CHECK(s.y_seek_ms(hi, +1, lo, -1) == Approx(s.turnaround_ms(hi, +1) + s.y_seek_ms(hi, -1, lo, -1)).epsilon(1e-9));
  }
  // Equal positions, equal directions: no seek; opposite directions: one turnaround.
  CHECK(s.seek_ms(10, 500, 1, 10, 500, 1) == 0.0);
  CHECK(s.seek_ms(10, 500, 1, 10, 500, -1) == Approx(s.turnaround_ms(500, 1)));
  CHECK(MemsSled::turnarounds(5, 1, 9, 1) == 0);
  CHECK(MemsSled::turnarounds(9, 1, 5, 1) == 2);
  CHECK(MemsSled::turnarounds(5, 1, 9, -1) == 1);
  CHECK(MemsSled::turnarounds(9, -1, 5, -1) == 0);
  CHECK(MemsSled::turnarounds(5, -1, 9, -1) == 2);
}

TEST_CASE("seek = max(t_x, t_y) and grows with distance", "[mems]") {
  const MemsSled s(kHong);
  CHECK(s.seek_ms(100, 700, 1, 300, 900, 1) ==
        std::max(s.x_seek_ms(100, 300), s.y_seek_ms(700, 1, 900, 1)));
  for (std::int64_t x0 : {0, 700, 1199, 2300}) {
    Millis prev = 0;
    for (std::int64_t x1 = x0 + 1; x1 < kHong.bits_x; ++x1) {
      const Millis t = s.x_seek_ms(x0, x1);
      REQUIRE(t > prev);
      prev = t;
    }
  }
  for (double y0 : {0.0, 1000.0, 2399.0}) {
    Millis prev = 0;
    for (double y1 = y0 + 1; y1 <= kHong.bits_y; ++y1) {
      const Millis t = s.y_base_ms(y0, y1);
      REQUIRE(t > prev);
      prev = t;
    }
  }
}

TEST_CASE("the spring factor maps to k as k L / 2 = s F", "[mems]") {
  const MemsSled s(kHong);
  const double half = kHong.mobility_x_m() / 2;
  // Spring force at full displacement over actuator force (both per unit mass).
  CHECK(s.omega2_x() * half / s.accel_m_s2() == Approx(0.75));
  CHECK(MemsSled(kHong, 0.375).omega2_y() * half / s.accel_m_s2() == Approx(0.375));
  CHECK(MemsSled(kHong, 0.0).omega2_x() == 0.0);
  MemsParams bad = kHong;
  bad.spring_factor = 1.0;
  CHECK_THROWS_WITH(MemsSled(bad), Catch::Contains("spring_factor"));
}
