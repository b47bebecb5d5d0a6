// Access and service times: JW's T_A(c, s) exactly, and properties of the general model.
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "tests/predictor/zoned_profile.hpp"

using namespace disksched;

namespace {

// JW sec. 4: T_A(c, s) = s + S * ceil((T_S(c)/tau - s) / S), in sector units.
double jw_access_sectors(double seek_ms, double tau, int s, int S) {
  return s + S * std::ceil((seek_ms / tau - s) / S);
}

}  // namespace

TEST_CASE("T_A equals JW's formula for every (c, s) on the HP 97560 (JW sec. 4)", "[access]") {
  DiskModel m(hp97560_profile());
  const double tau = m.sector_time_ms();
  const int S = 72;
  // Head at cylinder 0, head 0, sector 0 (time 0, phase 0), and also parked over
  // sector k of the track (time k*tau): s is the offset from the head's sector.
  for (int k : {0, 17, 71}) {
    HeadState h{k * tau, 0, 0, 0.0, 1, {}};
    for (std::int64_t c = 0; c < 1964; ++c) {
      for (int s = 0; s < S; ++s) {
        const std::uint64_t lba = m.chs_to_lba({c, 0, static_cast<std::uint32_t>((k + s) % S)});
        const Location to = m.locate(lba, 16, Op::Read);
        const double ours = m.positioning_ms(h, to) / tau;
        const double theirs = jw_access_sectors(m.seek_ms(c), tau, s, S);
        REQUIRE(ours == Approx(theirs).margin(1e-6));
      }
    }
  }
}

TEST_CASE("rotational wait is always below one rotation; service never negative", "[access]") {
  for (bool full : {false, true}) {
    DiskModel m(full ? hp97560_full_profile() : testing::zoned_profile(true));
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::uint64_t> lba(0, m.lbas() - 200);
    std::uniform_int_distribution<std::uint32_t> len(1, 190);
    std::uniform_real_distribution<double> time(0.0, 1e6);
    HeadState h = m.initial_state();
    for (int i = 0; i < 20000; ++i) {
      h.time_ms = time(rng);
      const std::uint64_t l = lba(rng);
      const std::uint32_t n = len(rng);
      const Op op = i % 3 == 0 ? Op::Write : Op::Read;
      const Cost c = m.service(h, op, l * m.sector_bytes(), n * m.sector_bytes());
      REQUIRE(c.rotation_ms >= 0.0);
      REQUIRE(c.rotation_ms < m.rotation_ms());
      REQUIRE(c.seek_ms >= 0.0);
      REQUIRE(c.transfer_ms > 0.0);
      REQUIRE(c.service_ms() >= 0.0);
      // The scheduler's estimate is the same positioning the service charges.
      REQUIRE(m.positioning_ms(h, m.locate(l, n, op)) == Approx(c.positioning_ms()).margin(1e-9));
      // The request's end state is where its last sector ends.
      REQUIRE(c.end.time_ms == Approx(h.time_ms + c.service_ms()).epsilon(1e-12));
      const Chs last = m.lba_to_chs(l + n - 1);
      REQUIRE(c.end.cylinder == last.cylinder);
      REQUIRE(c.end.head == last.head);
      const double at_end = m.angle_at(c.end.time_ms - c.completion_ms);
      double d = at_end - m.end_angle(l, n);
      d -= std::floor(d + 0.5);
      REQUIRE(std::fabs(d) < 1e-6);
      h = c.end;
    }
  }
}

TEST_CASE("a transfer across a head switch waits for the skewed next track", "[access]") {
  DiskModel m(hp97560_full_profile());  // track skew 8 sectors, head switch 1.6 ms
  const double tau = m.sector_time_ms();
  // Sectors 71 of (0,0) and 0 of (0,1): one sector, the switch (1.6 ms < 8 tau), the
  // wait up to the skewed sector 0, one sector: exactly 1 + 8 + 1 sector times.
  const std::uint64_t lba = 71;
  const Location loc = m.locate(lba, 2, Op::Read);
  HeadState h{0, loc.cylinder, loc.head, 0, 1, {}};
  const Cost c = m.service(h, Op::Read, lba * 512, 2 * 512);
  CHECK(c.transfer_ms == Approx(10 * tau).margin(1e-9));
  CHECK(c.end.head == 1);
  // Controller overhead comes first (2.2 ms) and shifts the rotational wait.
  CHECK(c.overhead_ms == Approx(2.2));
}

TEST_CASE("sequential reads stream: the next LBA costs no rotation on JW's model", "[access]") {
  DiskModel m(hp97560_profile());
  HeadState h = m.initial_state();
  Cost first = m.service(h, Op::Read, 0, 8192);
  Cost second = m.service(first.end, Op::Read, 8192, 8192);
  CHECK(second.seek_ms == 0.0);
  CHECK(second.rotation_ms == Approx(0.0).margin(1e-9));
  CHECK(second.transfer_ms == Approx(16 * m.sector_time_ms()));
}

TEST_CASE("a head state's spin turns the platter; the model stays as loaded", "[access]") {
  const DiskModel m(hp97560_profile());
  const Millis nominal = m.rotation_ms();
  const Spin anchored = Spin::anchored(1000.0, 0.25, nominal);
  CHECK(anchored.angle_at(1000.0) == Approx(0.25).margin(1e-12));
  CHECK(anchored.angle_at(1000.0 + nominal / 2) == Approx(0.75).margin(1e-9));
  const Spin faster = Spin::anchored(2000.0, 0.5, 15.0);
  CHECK(faster.angle_at(2007.5) == Approx(0.0).margin(1e-9));

  // On the request's track already: positioning is the overhead, then the wait until
  // the platter, turning as the head state says, brings the sector round.
  const Location l = m.locate(1000, 1, Op::Read);
  auto expected = [&](const Spin& s, Millis t) {
    double wait = l.angle - s.angle_at(t + l.overhead_ms);
    wait -= std::floor(wait);
    return l.overhead_ms + wait * s.period_ms;
  };
  HeadState h{2000.0, l.cylinder, l.head, 0, 1, {}};
  h.spin = faster;
  CHECK(m.positioning_ms(h, l) == Approx(expected(faster, 2000.0)).margin(1e-9));
  CHECK(m.service(h, Op::Read, 1000 * 512, 512).positioning_ms() ==
        Approx(expected(faster, 2000.0)).margin(1e-9));
  HeadState plain = h;
  plain.spin = Spin{};  // not given: the profile's
  CHECK(m.positioning_ms(plain, l) == Approx(expected(m.spin(), 2000.0)).margin(1e-9));
  CHECK(m.positioning_ms(plain, l) != Approx(m.positioning_ms(h, l)).margin(1e-3));
  CHECK(m.rotation_ms() == nominal);
}

TEST_CASE("flush and trim do not move the head", "[access]") {
  DiskModel m(testing::zoned_profile(false));
  HeadState h{5.0, 10, 2, 0, 1, {}};
  Cost f = m.service(h, Op::Flush, 0, 0);
  CHECK(f.end.cylinder == 10);
  CHECK(f.seek_ms == 0.0);
  CHECK(f.service_ms() == Approx(0.1));
  Cost t = m.service(h, Op::Trim, 0, 4096);
  CHECK(t.end.cylinder == 10);
}
