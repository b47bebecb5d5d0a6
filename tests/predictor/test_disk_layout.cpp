// The generalised layout (spares by scheme, slips, remapped defects, serpentine, gaps,
// empty front) against a brute-force reference that walks every physical sector, and
// what a request costs where the layout skips space.
#include <map>
#include <optional>
#include <vector>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "tests/predictor/zoned_profile.hpp"

using namespace disksched;

namespace {

// Every LBA's sector, found the slow way: walk the zone's positions in order and hand out
// slots as the scheme says, then LBAs after the empty front; remapped LBAs move last.
std::vector<Chs> reference_layout(const DiskProfile& p, std::vector<bool>* remapped = nullptr) {
  std::vector<Chs> out;
  const auto heads = static_cast<std::uint64_t>(p.heads);
  for (const ZoneSpec& z : p.zones) {
    const std::uint64_t cyls = static_cast<std::uint64_t>(z.last_cylinder - z.first_cylinder + 1);
    const std::uint64_t tracks = cyls * heads, spt = z.sectors_per_track;
    const auto slipped = [&](std::uint64_t pos) {
      return std::find(z.slips.begin(), z.slips.end(), pos) != z.slips.end();
    };
    const auto chs = [&](std::uint64_t track, std::uint64_t sector) {
      const std::int64_t c = z.first_cylinder + static_cast<std::int64_t>(track / heads);
      auto h = static_cast<std::int32_t>(track % heads);
      const bool odd = p.layout.mapping == Mapping::Serpentine
                           ? (c - z.first_cylinder) % 2 == 1
                           : p.layout.mapping == Mapping::SerpentineGlobal && c % 2 == 1;
      if (odd) h = p.heads - 1 - h;
      return Chs{c, h, static_cast<std::uint32_t>(sector)};
    };
    std::vector<std::uint64_t> slots;  // positions (sectors, or tracks for track units)
    std::uint64_t unit = 0;
    bool to_end = false;
    switch (p.layout.sparing) {
      case Sparing::TracksPerZone: {
        std::vector<std::uint64_t> t;
        for (std::uint64_t k = 0; k < tracks; ++k)
          if (!slipped(k) && t.size() < tracks - z.spares) t.push_back(k);
        for (std::uint64_t k : t)
          for (std::uint64_t s = 0; s < spt; ++s) slots.push_back(k * spt + s);
        break;
      }
      case Sparing::None: unit = tracks * spt; break;
      case Sparing::SectorsPerTrack: unit = spt; break;
      case Sparing::SectorsPerCylinder: unit = heads * spt; break;
      case Sparing::SectorsPerCylinderSlipToEnd: unit = heads * spt, to_end = true; break;
      case Sparing::SectorsAtEnd: unit = tracks * spt, to_end = true; break;
      case Sparing::SectorsPerRange: unit = static_cast<std::uint64_t>(p.layout.range_cylinders) * heads * spt; break;
      case Sparing::SectorsPerZone: unit = tracks * spt; break;
      case Sparing::SectorsPerZoneSlipToEnd: unit = tracks * spt, to_end = true; break;
    }
    if (unit != 0) {
      // Every unit, and a last one cut short (ranges), which has no spares.
      for (std::uint64_t u = 0; u * unit < tracks * spt; ++u) {
        const std::uint64_t size = std::min(unit, tracks * spt - u * unit);
        const std::uint64_t data = size < unit ? size : unit - z.spares;
        std::uint64_t taken = 0;
        for (std::uint64_t w = 0; w < size; ++w) {
          const std::uint64_t pos = u * unit + w;
          if (to_end ? (w < data && !slipped(pos)) : (!slipped(pos) && taken < data)) {
            slots.push_back(pos);
            ++taken;
          }
        }
      }
    }
    const bool tracks_unit = p.layout.sparing == Sparing::TracksPerZone;
    for (std::size_t k = z.empty_front; k < slots.size(); ++k) {
      std::uint64_t pos = slots[k];
      bool moved = false;
      for (const auto& [defect, spare] : z.remaps) {
        if (tracks_unit && pos / spt == defect) pos = spare * spt + pos % spt, moved = true;
        else if (!tracks_unit && pos == defect) pos = spare, moved = true;
      }
      out.push_back(chs(pos / spt, pos % spt));
      if (remapped) remapped->push_back(moved);
    }
  }
  return out;
}

DiskProfile small(Sparing sparing, std::uint64_t spares) {
  DiskProfile p = testing::zoned_profile(false);
  p.zones = {ZoneSpec{0, 5, 12, {}, {}}, ZoneSpec{8, 13, 10, {}, {}}, ZoneSpec{14, 17, 8, {}, {}}};
  p.layout.sparing = sparing;
  for (auto& z : p.zones) z.spares = spares;
  return p;
}

void check_against_reference(const DiskProfile& p) {
  const DiskModel m(p);
  std::vector<bool> remapped;
  const std::vector<Chs> want = reference_layout(p, &remapped);
  REQUIRE(m.lbas() == want.size());
  std::map<std::tuple<std::int64_t, std::int32_t, std::uint32_t>, std::uint64_t> at;
  for (std::uint64_t l = 0; l < want.size(); ++l) {
    INFO("lba " << l);
    const Chs got = m.lba_to_chs(l);
    CHECK(got.cylinder == want[l].cylinder);
    CHECK(got.head == want[l].head);
    CHECK(got.sector == want[l].sector);
    at[{want[l].cylinder, want[l].head, want[l].sector}] = l;
  }
  // Every run end (direct zones take the arithmetic path, the others the general one):
  // the last LBA from l on that lies on l's track in rising sectors; a remapped defect
  // (a sector, or a whole track under track units) is a run of its own.
  const DiskLayout& layout = m.layout();
  for (std::uint64_t l = 0; l < want.size(); ++l) {
    std::uint64_t e = l;
    const bool alone = remapped[l] && p.layout.sparing != Sparing::TracksPerZone;
    while (!alone && e + 1 < want.size() && want[e + 1].cylinder == want[l].cylinder &&
           want[e + 1].head == want[l].head && want[e + 1].sector > want[e].sector &&
           remapped[e + 1] == remapped[l])
      ++e;
    INFO("run from lba " << l);
    Chs end;
    CHECK(layout.run_end(l, want.size() - 1, layout.to_chs(l), end) == e);
    CHECK(end == want[e]);
    const std::uint64_t cut = std::min<std::uint64_t>(e, l + 2);
    CHECK(layout.run_end(l, cut) == cut);
  }
  // Every physical sector: its LBA, or none (spare, slipped, defect, front).
  for (const ZoneSpec& z : p.zones)
    for (std::int64_t c = z.first_cylinder; c <= z.last_cylinder; ++c)
      for (std::int32_t h = 0; h < p.heads; ++h)
        for (std::uint32_t s = 0; s < z.sectors_per_track; ++s) {
          INFO("chs " << c << ":" << h << ":" << s);
          auto it = at.find({c, h, s});
          if (it != at.end())
            CHECK(m.chs_to_lba({c, h, s}) == it->second);
          else
            CHECK_THROWS_WITH(m.chs_to_lba({c, h, s}), Catch::Contains("has no LBA"));
        }
}

}  // namespace

TEST_CASE("every sparing scheme maps as the brute-force walk says", "[layout]") {
  struct Case { Sparing sparing; std::uint64_t spares; std::vector<std::uint64_t> slips; };
  const std::vector<Case> cases = {
      {Sparing::None, 0, {}},
      {Sparing::TracksPerZone, 3, {2, 9}},
      {Sparing::SectorsPerTrack, 2, {0, 13, 14, 30}},
      {Sparing::SectorsPerCylinder, 3, {5, 47, 48, 50}},
      {Sparing::SectorsPerCylinderSlipToEnd, 2, {5, 45, 100}},
      {Sparing::SectorsAtEnd, 0, {0, 7, 8, 200}},
      {Sparing::SectorsPerRange, 4, {1, 2, 3, 100}},
      {Sparing::SectorsPerZone, 20, {3, 4, 77, 139}},
      {Sparing::SectorsPerZoneSlipToEnd, 20, {3, 4, 77, 139}},
  };
  for (const Case& c : cases) {
    for (Mapping mapping : {Mapping::Conventional, Mapping::Serpentine, Mapping::SerpentineGlobal}) {
      DiskProfile p = small(c.sparing, c.spares);
      p.layout.mapping = mapping;
      p.layout.range_cylinders = 2;
      p.zones[0].slips = c.slips;
      p.zones[1].slips = c.slips;
      p.zones[1].empty_front = 25;
      INFO("sparing " << sparing_name(c.sparing) << ", mapping " << mapping_name(mapping));
      check_against_reference(p);
    }
  }
}

TEST_CASE("a zone that is not a whole number of ranges ends in a short range without spares",
          "[layout]") {
  // Ranges of 4 cylinders: zone 0 (6 cylinders) and zone 1 (6) end in a range of 2, zone
  // 2 (4) is one whole range (DiskSim's g1_ltop_sectperrangespare maps them so).
  for (Mapping mapping : {Mapping::Conventional, Mapping::Serpentine}) {
    DiskProfile p = small(Sparing::SectorsPerRange, 5);
    p.layout.mapping = mapping;
    p.layout.range_cylinders = 4;
    p.zones[0].slips = {1, 100};
    p.zones[1].slips = {7};
    INFO("mapping " << mapping_name(mapping));
    check_against_reference(p);
    CHECK(DiskModel(p).lbas() == (192 - 5 + 96) + (160 - 5 + 80) + (128 - 5));
  }
}

TEST_CASE("remapped defects are served from their spare; the defect has no LBA", "[layout]") {
  DiskProfile p = small(Sparing::SectorsPerZone, 10);
  p.zones[0].remaps = {{30, 286}, {31, 287}};  // zone 0 has 6 x 4 x 12 = 288 sectors
  check_against_reference(p);
  const DiskModel m(p);
  // LBA 30 lies on the zone's last track (cylinder 5, head 3), sectors 10 and 11.
  CHECK(m.lba_to_chs(30) == Chs{5, 3, 10});
  CHECK(m.lba_to_chs(31) == Chs{5, 3, 11});
  CHECK(m.lba_to_chs(32) == Chs{0, 2, 8});
  // Reading 29..32 goes out to the spare and back: two seeks of 5 cylinders.
  const HeadState at{0.0, 0, 2, 0.0, 1, {}};
  const Cost c = m.service(at, Op::Read, 29 * 512, 4 * 512);
  CHECK(c.transfer_ms > 2 * m.seek_ms(5));
  DiskProfile q = small(Sparing::TracksPerZone, 3);
  q.zones[1].remaps = {{4, 22}};  // the whole fifth track of zone 1 lies on its spare track 22
  check_against_reference(q);

  DiskProfile bad = small(Sparing::SectorsPerZone, 10);
  bad.zones[0].remaps = {{30, 31}};
  CHECK_THROWS_WITH(DiskModel(bad), Catch::Contains("the spare holds data"));
  bad.zones[0].remaps = {{280, 285}};
  CHECK_THROWS_WITH(DiskModel(bad), Catch::Contains("the defect holds no data"));
}

TEST_CASE("layouts the files could state but a disk cannot have are refused by name", "[layout]") {
  DiskProfile p = small(Sparing::SectorsPerTrack, 1);
  p.zones[0].slips = {3, 4};  // two slips on one track with one spare
  CHECK_THROWS_WITH(DiskModel(p), Catch::Contains("zone 0") && Catch::Contains("2 slips in one sparing unit"));
  p = small(Sparing::None, 0);
  p.zones[0].slips = {3};
  CHECK_THROWS_WITH(DiskModel(p), Catch::Contains("slips need a sparing scheme"));
  p = small(Sparing::SectorsPerRange, 1);
  p.layout.range_cylinders = 4;
  p.zones[0].slips = {200};  // in zone 0's last range, cut short at 2 cylinders: no spares
  CHECK_THROWS_WITH(DiskModel(p), Catch::Contains("zone 0") && Catch::Contains("1 slips in one sparing unit (from position 192) but 0 spares"));
  p.layout.range_cylinders = 5;
  p.zones[0].slips.clear();
  p.zones[0].spares = 200;  // a range of 240 sectors keeps 40 for data; the short one has 48
  CHECK_THROWS_WITH(DiskModel(p), Catch::Contains("zone 0") && Catch::Contains("holds more than a whole range's 40 data sectors"));
  p = small(Sparing::SectorsPerZone, 1);
  p.zones[2].empty_front = 1000;
  CHECK_THROWS_WITH(DiskModel(p), Catch::Contains("zone 2") && Catch::Contains("empty_front 1000"));
}

TEST_CASE("a zone with its own first-block offset starts its skews there", "[layout]") {
  DiskProfile p = small(Sparing::None, 0);
  p.zones[1].first_block_sectors = 3;
  p.zones[1].track_skew_sectors = 2;
  p.zones[1].cylinder_skew_sectors = 5;
  const DiskModel m(p);
  CHECK(m.track_angle(8, 0) == Approx(0.3));
  CHECK(m.track_angle(8, 1) == Approx(0.5));
  // Cylinder 9, head 2: 3 + (3 x 2 + 5) + 2 x 2 = 18 sectors of 10 = 0.8 of a turn.
  CHECK(m.track_angle(9, 2) == Approx(0.8));
  CHECK(m.sector_angle({9, 2, 1}) == Approx(0.9));
  // Serpentine: the track's index on the cylinder, not its head, counts the skews.
  p.layout.mapping = Mapping::Serpentine;
  const DiskModel s(p);
  CHECK(s.track_angle(9, 3) == Approx(m.track_angle(9, 0)));
}

TEST_CASE("a request that runs from a zone's last data sector into its spare tracks pays the "
          "switch to the next zone, not a rotation per spare track",
          "[layout]") {
  // Spare tracks written the old way (every spare sector a slipped defect) and the new
  // (spares at the zone's end): either way the transfer skips them.
  DiskProfile old_way = small(Sparing::None, 0);
  for (std::int32_t h = 1; h < old_way.heads; ++h)  // cylinder 5, heads 1-3: spare
    for (std::uint32_t s = 0; s < 12; ++s) old_way.defects.push_back({5, h, s});
  DiskProfile new_way = small(Sparing::TracksPerZone, 3);
  for (const DiskProfile& p : {old_way, new_way}) {
    const DiskModel m(p);
    const std::uint64_t last = m.chs_to_lba({5, 0, 11});
    REQUIRE(m.lba_to_chs(last + 1) == Chs{8, 0, 0});
    // 13 sectors: 5 on the last data track, 8 in the next zone.
    const HeadState at{0.0, 5, 0, 0.0, 1, {}};
    const Location loc = m.locate(last - 4, 13, Op::Write);
    const Cost c = m.service(at, Op::Write, (last - 4) * 512, 13 * 512);
    const Millis T = m.rotation_ms();
    const Millis start = p.overhead_ms.write + c.rotation_ms;
    REQUIRE(c.seek_ms == 0.0);
    CHECK(loc.angle == Approx(m.sector_angle({5, 0, 7})));
    // By the mechanics: 5 sectors of 12, the 3-cylinder seek, the wait for (8, 0, 0),
    // 8 sectors of 10.
    const Millis at_switch = start + 5 * T / 12;
    const Millis moved = at_switch + m.move_ms(5, 0, 8, 0);
    double wait = m.sector_angle({8, 0, 0}) - moved / T;
    wait -= std::floor(wait);
    const Millis want = (moved + wait * T + 8 * T / 10) - start;
    CHECK(c.transfer_ms == Approx(want).margin(1e-9));
    CHECK(c.transfer_ms < 2 * T);
  }
}

TEST_CASE("a write's settle is added to every move, never below zero", "[layout]") {
  DiskProfile p = small(Sparing::None, 0);
  p.write_settle_ms = 0.5;
  const DiskModel m(p);
  const HeadState at{0.0, 0, 0, 0.0, 1, {}};
  const std::uint64_t far = m.chs_to_lba({3, 1, 0});
  const Cost r = m.service(at, Op::Read, far * 512, 512);
  const Cost w = m.service(at, Op::Write, far * 512, 512);
  CHECK(r.seek_ms == m.move_ms(0, 0, 3, 1));
  CHECK(w.seek_ms == Approx(r.seek_ms + 0.5));
  CHECK(m.positioning_ms(at, m.locate(far, 1, Op::Write)) ==
        Approx(w.positioning_ms()).margin(1e-9));
  // No move, no settle.
  CHECK(m.service(at, Op::Write, 0, 512).seek_ms == 0.0);
  p.write_settle_ms = -100;
  CHECK(DiskModel(p).service(at, Op::Write, far * 512, 512).seek_ms == 0.0);
}
