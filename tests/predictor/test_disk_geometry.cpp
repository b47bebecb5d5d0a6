// LBA <-> (cylinder, head, sector) mapping, skews and defects.
#include <random>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "tests/predictor/zoned_profile.hpp"

using namespace disksched;

TEST_CASE("HP 97560 geometry: capacity and sector time (JW sec. 3)", "[geometry]") {
  DiskModel m(hp97560_profile());
  CHECK(m.capacity_bytes() == 1375617024ull);  // 1964 x 19 x 72 x 512
  CHECK(m.cylinders() == 1964);
  CHECK(m.sector_time_ms() == Approx(0.2082).margin(5e-5));
  CHECK(m.rotation_ms() == Approx(14.9925).margin(5e-5));
}

TEST_CASE("LBA <-> CHS round-trips at every track, cylinder and zone boundary", "[geometry]") {
  for (bool defects : {false, true}) {
    DiskModel m(testing::zoned_profile(defects));
    std::uint64_t expected_lba = 0;
    // Walk every physical sector in order: LBAs are consecutive, skipping defects.
    for (std::int64_t c = 0; c < m.cylinders(); ++c)
      for (std::int32_t h = 0; h < m.heads(); ++h)
        for (std::uint32_t s = 0; s < m.sectors_per_track(c); ++s) {
          Chs chs{c, h, s};
          bool is_defect = false;
          for (const auto& d : m.profile().defects)
            if (d.cylinder == c && d.head == h && d.sector == s) is_defect = true;
          if (is_defect) {
            REQUIRE_THROWS_AS(m.chs_to_lba(chs), ModelError);
            continue;
          }
          REQUIRE(m.chs_to_lba(chs) == expected_lba);
          REQUIRE(m.lba_to_chs(expected_lba) == chs);
          ++expected_lba;
        }
    CHECK(expected_lba == m.lbas());
    CHECK_THROWS_AS(m.lba_to_chs(m.lbas()), ModelError);
  }
}

TEST_CASE("LBA <-> CHS round-trips at random LBAs on the HP 97560", "[geometry]") {
  DiskModel m(hp97560_full_profile());
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::uint64_t> pick(0, m.lbas() - 1);
  for (int i = 0; i < 100000; ++i) {
    std::uint64_t lba = pick(rng);
    Chs chs = m.lba_to_chs(lba);
    REQUIRE(chs.sector == lba % 72);
    REQUIRE(chs.head == static_cast<std::int32_t>((lba / 72) % 19));
    REQUIRE(chs.cylinder == static_cast<std::int64_t>(lba / (72 * 19)));
    REQUIRE(m.chs_to_lba(chs) == lba);
  }
}

TEST_CASE("skews: each head switch adds the track skew, each cylinder switch the cylinder skew",
          "[geometry]") {
  DiskModel m(hp97560_full_profile());  // 8 and 18 sectors of 72
  const double t = 8.0 / 72, c = 18.0 / 72;
  auto near = [](double a, double b) {
    double d = std::fabs(a - b);
    return std::min(d, 1.0 - d) < 1e-12;
  };
  CHECK(near(m.track_angle(0, 0), 0.0));
  CHECK(near(m.track_angle(0, 1), t));
  CHECK(near(m.track_angle(0, 18), std::fmod(18 * t, 1.0)));
  CHECK(near(m.track_angle(1, 0), std::fmod(18 * t + c, 1.0)));
  CHECK(near(m.track_angle(5, 3), std::fmod(5 * (18 * t + c) + 3 * t, 1.0)));
  CHECK(near(m.sector_angle({0, 0, 36}), 0.5));
}

TEST_CASE("zone crossing applies the new zone's cylinder skew", "[geometry]") {
  DiskModel m(testing::zoned_profile(false));
  // Last track of zone 0 is (29, 3); zone 1's first track is skewed by its own
  // cylinder skew (25 of 100 sectors) from it.
  double last0 = m.track_angle(29, 3);
  double first1 = m.track_angle(30, 0);
  double d = first1 - last0 - 0.25;
  d -= std::floor(d + 0.5);
  CHECK(std::fabs(d) < 1e-12);
}
