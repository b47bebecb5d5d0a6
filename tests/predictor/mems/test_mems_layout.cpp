// Tip sectors, the LBA layout, and the MEMS model's service and positioning.
#include <random>

#include <catch2/catch.hpp>

#include "predictor/mems/mems_describe.hpp"
#include "predictor/mems/mems_model.hpp"

using namespace disksched;

namespace {

// Every boundary of the layout: first and last sector of each row, track (group) and
// column, for a spread of columns including the first and last.
std::vector<std::uint64_t> boundary_lbas(const MemsLayout& l) {
  std::vector<std::uint64_t> out;
  const std::uint64_t track = l.sectors_per_track(), column = l.sectors_per_column();
  for (std::int64_t x = 0; x < l.columns(); ++x) {
    const std::uint64_t c0 = static_cast<std::uint64_t>(x) * column;
    out.push_back(c0);
    out.push_back(c0 + column - 1);
    if (x % 97 != 0 && x != l.columns() - 1) continue;
    for (int g = 0; g < l.groups(); ++g) {
      const std::uint64_t t0 = c0 + static_cast<std::uint64_t>(g) * track;
      out.push_back(t0);
      out.push_back(t0 + track - 1);
      for (int r = 0; r < l.rows(); ++r) {
        out.push_back(t0 + static_cast<std::uint64_t>(r) * l.cells_per_row());
        out.push_back(t0 + static_cast<std::uint64_t>(r + 1) * l.cells_per_row() - 1);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("tip-sector layout of the G2 device", "[mems]") {
  const MemsModel m;
  const MemsLayout& l = m.layout();
  // (2400 - 10) / (10 + 80) rows, 6400 / 1280 groups, 1280 / 64 sectors per row.
  CHECK(l.rows() == 26);
  CHECK(l.groups() == 5);
  CHECK(l.cells_per_row() == 20);
  CHECK(l.sectors() == 2400ull * 5 * 26 * 20);
  CHECK(m.capacity_bytes() == l.sectors() * 512);
  // Table 1 as printed: 2500 bits give 27 rows, 3.456e9 bytes (3.2 GiB).
  const MemsModel t1(MemsParams::table1());
  CHECK(t1.layout().rows() == 27);
  CHECK(t1.capacity_bytes() == 2500ull * 5 * 27 * 20 * 512);
  // One row: 90 bits at 700,000 bits/s.
  CHECK(m.row_ms() == Approx(90.0 / 700000.0 * 1000));
  // The band is centred and inside the tip region, for both directions.
  for (std::int64_t x : {0, 1}) {
    for (int r = 0; r < l.rows(); ++r) {
      const auto s = l.row_start_y(x, r), e = l.row_end_y(x, r);
      CHECK(std::abs(e - s) == l.row_bits());
      CHECK((e - s > 0) == (MemsLayout::direction(x) > 0));
      CHECK(std::min(s, e) >= l.y_base());
      CHECK(std::max(s, e) <= l.y_base() + l.rows() * l.row_bits() + l.servo_bits());
      // Consecutive rows in the direction of access follow without a gap.
      if (r + 1 < l.rows()) CHECK(l.row_start_y(x, r + 1) == e);
    }
  }
  CHECK(l.y_base() + l.rows() * l.row_bits() + l.servo_bits() + l.y_base() <= 2400);
  CHECK(l.y_base() * 2 + l.rows() * l.row_bits() + l.servo_bits() >= 2400 - 1);
  // Even columns read moving +y from the bottom, odd ones moving -y from the top.
  CHECK(MemsLayout::direction(0) == 1);
  CHECK(MemsLayout::direction(1) == -1);
  CHECK(l.row_start_y(0, 0) == l.y_base());
  CHECK(l.row_end_y(0, l.rows() - 1) + l.servo_bits() == l.row_start_y(1, 0));
}

TEST_CASE("LBA <-> (x, group, row, cell) round-trips at random LBAs and every boundary", "[mems]") {
  for (const MemsParams& p : {MemsParams::hong2003(), MemsParams::table1()}) {
    const MemsModel m(p);
    const MemsLayout& l = m.layout();
    std::vector<std::uint64_t> lbas = boundary_lbas(l);
    std::mt19937_64 rng(2);
    std::uniform_int_distribution<std::uint64_t> any(0, l.sectors() - 1);
    for (int i = 0; i < 20000; ++i) lbas.push_back(any(rng));
    for (std::uint64_t lba : lbas) {
      const MemsAddress a = l.address(lba);
      REQUIRE(l.lba(a) == lba);
      REQUIRE(a.x >= 0);
      REQUIRE(a.x < l.columns());
      const Location loc = m.locate(lba, 1);
      REQUIRE(loc.cylinder == a.x);
      REQUIRE(loc.head == a.group);
      REQUIRE(loc.y_dir == MemsLayout::direction(a.x));
      REQUIRE(loc.y == static_cast<double>(l.row_start_y(a.x, a.row)));
      // The next LBA is the next cell, the next row, the next group or the next column.
      if (lba + 1 < l.sectors()) {
        const MemsAddress b = l.address(lba + 1);
        if (a.cell + 1 < l.cells_per_row()) {
          REQUIRE(b == MemsAddress{a.x, a.group, a.row, a.cell + 1});
        } else if (a.row + 1 < l.rows()) {
          REQUIRE(b == MemsAddress{a.x, a.group, a.row + 1, 0});
        } else if (a.group + 1 < l.groups()) {
          REQUIRE(b == MemsAddress{a.x, a.group + 1, 0, 0});
        } else {
          REQUIRE(b == MemsAddress{a.x + 1, 0, 0, 0});
        }
      }
      // Tips: 64 per sector, distinct per (group, cell), inside 0 .. 6399.
      REQUIRE(l.first_tip(a) + p.tips_per_sector <= p.tips);
    }
    CHECK(l.address(l.sectors() - 1) ==
          MemsAddress{l.columns() - 1, l.groups() - 1, l.rows() - 1, l.cells_per_row() - 1});
    CHECK_THROWS_AS(l.address(l.sectors()), ModelError);
    CHECK_THROWS_AS(l.lba(MemsAddress{0, l.groups(), 0, 0}), ModelError);
    CHECK_THROWS_WITH(m.locate(l.sectors() - 1, 2), Catch::Contains("beyond the device"));
  }
}

TEST_CASE("service: never negative, positioning agrees, ends where the last sector ends", "[mems]") {
  const MemsModel m;
  const MemsLayout& l = m.layout();
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<std::uint64_t> any(0, l.sectors() - 4096);
  std::uniform_int_distribution<std::uint32_t> len(1, 4096);
  std::uniform_int_distribution<std::int64_t> col(0, 2399);
  std::uniform_int_distribution<int> ybit(0, 2400);
  for (int i = 0; i < 5000; ++i) {
    HeadState h;
    h.time_ms = i * 0.37;
    h.cylinder = col(rng);
    h.y = ybit(rng);
    h.y_dir = static_cast<std::int8_t>(i % 2 ? 1 : -1);
    const std::uint64_t lba = any(rng);
    const std::uint32_t n = i % 3 ? len(rng) % 64 + 1 : len(rng);
    const Cost c = m.service(h, i % 2 ? Op::Read : Op::Write, lba * 512, n * 512);
    REQUIRE(c.seek_ms >= 0);
    REQUIRE(c.rotation_ms == 0);
    REQUIRE(c.transfer_ms >= m.row_ms());
    REQUIRE(c.service_ms() >= 0);
    REQUIRE(c.positioning_ms() == Approx(m.positioning_ms(h, m.locate(lba, n))).margin(1e-12));
    // The end state is where the last sector's row ends, moving in its direction.
    const HeadState e = m.end_state(lba + n - 1);
    REQUIRE(c.end.cylinder == e.cylinder);
    REQUIRE(c.end.y == e.y);
    REQUIRE(c.end.y_dir == e.y_dir);
    REQUIRE(c.end.time_ms == Approx(h.time_ms + c.service_ms()).epsilon(1e-12));
    // Rows touched, at the access speed, bound the transfer from below.
    const MemsAddress a = l.address(lba), b = l.address(lba + n - 1);
    if (a.x == b.x && a.group == b.group)
      REQUIRE(c.transfer_ms == Approx((b.row - a.row + 1) * m.row_ms()).epsilon(1e-12));
  }
}

TEST_CASE("service: the switches inside a transfer are the sled's seeks", "[mems]") {
  const MemsModel m;
  const MemsLayout& l = m.layout();
  const MemsSled& s = m.sled();
  const std::uint64_t track = l.sectors_per_track(), column = l.sectors_per_column();
  const HeadState h = m.initial_state();
  // A whole track: its rows stream back to back.
  Cost c = m.service(h, Op::Read, column * 10 * 512, static_cast<std::uint32_t>(track * 512));
  CHECK(c.transfer_ms == Approx(l.rows() * m.row_ms()));
  // Two tracks of one column: the sled sweeps back (turnaround, seek, turnaround).
  c = m.service(h, Op::Read, column * 10 * 512, static_cast<std::uint32_t>(2 * track * 512));
  const HeadState end0 = m.end_state(column * 10 + track - 1), start1 = m.start_state(column * 10 + track);
  CHECK(start1.cylinder == end0.cylinder);
  CHECK(c.transfer_ms == Approx(2 * l.rows() * m.row_ms() +
                                s.y_seek_ms(end0.y, end0.y_dir, start1.y, start1.y_dir)));
  CHECK(MemsSled::turnarounds(end0.y, end0.y_dir, start1.y, start1.y_dir) == 2);
  // Across a column: a one-column x seek (with settle) and a turnaround, in parallel.
  const std::uint64_t last = column * 11 - 1;
  c = m.service(h, Op::Read, (last - 5) * 512, 10 * 512);
  const HeadState e = m.end_state(last), f = m.start_state(last + 1);
  CHECK(f.cylinder == e.cylinder + 1);
  CHECK(c.transfer_ms == Approx(2 * m.row_ms() + s.seek_ms(e.cylinder, e.y, e.y_dir, f.cylinder, f.y, f.y_dir)));
  CHECK(c.transfer_ms > 2 * m.row_ms() + s.settle_ms());
  // Splitting a request at a row boundary changes nothing: the second part starts where
  // the first ended, with no seek.
  const std::uint64_t a = column * 7 + 3 * l.cells_per_row();
  const Cost whole = m.service(h, Op::Read, a * 512, 100 * 512);
  const Cost first = m.service(h, Op::Read, a * 512, 40 * 512);
  const Cost second = m.service(first.end, Op::Read, (a + 40) * 512, 60 * 512);
  CHECK(second.seek_ms == 0.0);
  CHECK(second.end.time_ms == Approx(whole.end.time_ms).epsilon(1e-12));
  // Re-reading the row just passed needs the sled to go back for it.
  const Cost again = m.service(first.end, Op::Read, (a + 39) * 512, 512);
  CHECK(again.seek_ms == Approx(s.y_seek_ms(first.end.y, first.end.y_dir,
                                            m.start_state(a + 39).y, first.end.y_dir)));
  CHECK(again.seek_ms > 2 * s.turnaround_ms(2400, 1));
  // Partial sectors round out to whole sectors.
  const Cost part = m.service(h, Op::Read, a * 512 + 100, 10);
  CHECK(part.end.y == m.end_state(a).y);
}

TEST_CASE("service: flush and trim do not move the sled; bad requests are errors", "[mems]") {
  MemsParams p;
  p.overhead_ms = 0.2;
  const MemsModel m(p);
  HeadState h = m.initial_state();
  h.time_ms = 5;
  for (Op op : {Op::Flush, Op::Trim}) {
    const Cost c = m.service(h, op, 0, 4096);
    CHECK(c.seek_ms == 0);
    CHECK(c.transfer_ms == 0);
    CHECK(c.end.cylinder == h.cylinder);
    CHECK(c.end.time_ms == Approx(5.2));
  }
  const Cost r = m.service(h, Op::Read, 0, 512);
  CHECK(r.overhead_ms == 0.2);
  CHECK(m.locate(0, 1).overhead_ms == 0.2);
  CHECK(r.positioning_ms() == Approx(m.positioning_ms(h, m.locate(0, 1))));
  CHECK_THROWS_WITH(m.service(h, Op::Read, m.capacity_bytes() - 512, 1024), Catch::Contains("beyond"));
  HeadState bad = h;
  bad.cylinder = 2400;
  CHECK_THROWS_WITH(m.service(bad, Op::Read, 0, 512), Catch::Contains("outside"));
  bad = h;
  bad.y = -1;
  CHECK_THROWS_AS(m.service(bad, Op::Read, 0, 512), ModelError);
  MemsParams q;
  q.active_tips = 1000;
  CHECK_THROWS_WITH(MemsModel(q), Catch::Contains("active_tips"));
  q = MemsParams{};
  q.accel_m_s2 = 0;
  CHECK_THROWS_WITH(MemsModel(q), Catch::Contains("accel_m_s2"));
}

TEST_CASE("the built-in `mems` model", "[mems]") {
  const auto m = load_model("mems");
  CHECK(m->kind() == "mems");
  CHECK(m->name() == "mems");
  CHECK_FALSE(m->rotational());
  CHECK(m->cylinders() == 2400);
  CHECK(m->sector_bytes() == 512);
  const HeadState h = m->initial_state();
  CHECK(h.cylinder == 1200);
  CHECK(h.y == 1200);
  CHECK(h.y_dir == 1);
  // Seek by distance: x only, with settle, growing, centred on the sled.
  CHECK(m->seek_ms(0) == 0);
  CHECK(m->seek_ms(1) > 0.215);
  Millis prev = 0;
  for (std::int64_t d = 1; d < 2400; d += 7) {
    CHECK(m->seek_ms(d) > prev);
    prev = m->seek_ms(d);
  }
  CHECK(m->seek_ms(-30) == m->seek_ms(30));
  CHECK_THROWS_WITH(m->seek_ms(2400), Catch::Contains("does not fit"));
  const auto j = describe_mems(*m);
  CHECK(j["kind"] == "mems");
  CHECK(j["tips"] == 6400);
  CHECK(j["active_tips"] == 1280);
  CHECK(j["bits_per_tip_x"] == 2400);
  CHECK(j["sled_acceleration_m_s2"] == 803.6);
  CHECK(j["spring_factor"] == 0.75);
  CHECK(j["settle_ms"].get<double>() == Approx(0.2154).margin(1e-4));
  CHECK(j["capacity_bytes"] == m->capacity_bytes());
  CHECK(j["sled_mobility_um"].get<double>() == Approx(96.0));
  CHECK_THROWS_WITH(describe_mems(*load_model("fixed:ms=1")), Catch::Contains("not a MEMS"));
}
