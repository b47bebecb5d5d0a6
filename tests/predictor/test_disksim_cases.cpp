// DiskSim 4.0 files DiskSim runs and the importer once refused or misread, each a small
// made-up drive in tests/data/disksim-cases: a zone cut short of a whole sparing range,
// "Number of cylinders" short of the zones, a defect remapped to itself, "Read-ahead over
// requested = -1", slips in the skew under sparing scheme 2, the dm_layout_g4 tree, and
// DiskSim's command-line overrides (--set).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"

using namespace disksched;
using namespace disksched::disksim;

namespace {

std::string cases(const std::string& name) { return std::string(DISKSIM_CASES_DIR) + "/" + name; }

bool has_line(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

std::string error_of(const std::string& file, const std::vector<std::string>& sets = {}) {
  try {
    std::vector<Override> o;
    for (const auto& s : sets) o.push_back(parse_override(s));
    import_disksim(file, "", o);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

// `file` with its first `from` replaced by `to`, written to a scratch copy of the cases
// (so its `source` lines still find their files), imported; the error, or "".
std::string error_with(const std::string& file, const std::string& from, const std::string& to) {
  std::ifstream in(cases(file));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), to);
  std::string t = (std::filesystem::temp_directory_path() / "disksim-cases-XXXXXX").string();
  const std::filesystem::path dir = mkdtemp(t.data());
  for (const auto& f : std::filesystem::directory_iterator(DISKSIM_CASES_DIR))
    std::filesystem::copy(f.path(), dir / f.path().filename());
  const std::string path = (dir / file).string();
  std::ofstream(path) << text;
  std::string e = error_of(path);
  std::filesystem::remove_all(dir);
  if (e.rfind(path, 0) == 0) e = file + e.substr(path.size());  // name it by the case
  return e;
}

}  // namespace

TEST_CASE("a zone that is not a whole number of sparing ranges: its last range has no spares",
          "[disksim]") {
  const DiskSimImport r = import_disksim(cases("partial-range.model"));
  const DiskModel m(r.profile);
  // 10 cylinders in ranges of 4: two ranges of 80 sectors less 3 spares, and 2 cylinders
  // (40 sectors) without spares: 194, the file's Block count.
  REQUIRE(m.lbas() == 194);
  CHECK_FALSE(has_line(r.notes, "the layout holds"));  // exactly the stated blocks
  // DiskSim's g1_ltop_sectperrangespare: range lbn / 77, then cylinders of 20 and tracks
  // of 10 from the range's first cylinder.
  for (std::uint64_t lbn = 0; lbn < 194; ++lbn) {
    INFO("LBN " << lbn);
    const std::uint64_t range = lbn / 77, in = lbn % 77;
    const Chs want{static_cast<std::int64_t>(range * 4 + in / 20), static_cast<std::int32_t>(in % 20 / 10),
                   static_cast<std::uint32_t>(in % 10)};
    CHECK(m.lba_to_chs(lbn) == want);
    CHECK(m.chs_to_lba(want) == lbn);
  }
  CHECK_THROWS_WITH(m.chs_to_lba({3, 1, 7}), Catch::Contains("has no LBA"));  // a spare
  // A slip in the short range has no spare to take it.
  CHECK_THAT(error_with("partial-range.model", "slips = []", "slips = [ 170 ]"),
             Catch::Contains("1 slips in one sparing unit (from position 160) but 0 spares"));
}

TEST_CASE("'Number of cylinders' short of the zones: the zones' cylinders, with a note",
          "[disksim]") {
  const DiskSimImport r = import_disksim(cases("cylinders-beyond.model"));
  const DiskSimImport s = import_disksim(cases("small.model"));
  CHECK(profile_to_json(r.profile)["zones"] == profile_to_json(s.profile)["zones"]);
  CHECK(DiskModel(r.profile).cylinders() == 40);
  CHECK(has_line(r.notes, "cylinders-beyond.model:4: 'Number of cylinders' is 39 but the zones "
                          "run to cylinder 39: the zones' 40 cylinders are used"));
}

TEST_CASE("a defect remapped to itself is left out with a note; the file's other remaps stand",
          "[disksim]") {
  const DiskSimImport r = import_disksim(cases("self-remap.model"));
  const DiskModel m(r.profile);
  REQUIRE(r.profile.zones[0].remaps == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{5, 19}});
  CHECK(has_line(r.notes, "zone 0: remap [17, 17] remaps a defect to itself: ignored, as DiskSim "
                          "4.0 ignores it"));
  CHECK(m.lba_to_chs(5) == Chs{0, 0, 19});   // remapped to the track's spare
  CHECK(m.lba_to_chs(17) == Chs{0, 0, 17});  // where it was
  CHECK(m.lbas() == 1360);
}

TEST_CASE("Read-ahead over requested = -1: read-ahead over requested, the data sent forgotten",
          "[disksim]") {
  const DiskSimImport r = import_disksim(cases("readahead-minus1.diskspecs"));
  CHECK(r.profile.drive.cache.read_ahead_over_requested);
  CHECK(r.profile.drive.cache.forget_sent);
  const DiskSimImport one = import_disksim(cases("small.diskspecs"));
  CHECK(one.profile.drive.cache.read_ahead_over_requested);
  CHECK_FALSE(one.profile.drive.cache.forget_sent);
  CHECK_THAT(error_with("readahead-minus1.diskspecs", "= -1,", "= -2,"),
             Catch::Contains("expected a number in [-1, 1] for 'Read-ahead over requested'"));
  CHECK_THAT(error_with("readahead-minus1.diskspecs", "= -1,", "= 0.5,"),
             Catch::Contains("expected -1, 0 or 1 for 'Read-ahead over requested'"));
}

TEST_CASE("sparing scheme 2: each slip before a cylinder turns its tracks one sector on",
          "[disksim]") {
  const DiskSimImport r = import_disksim(cases("slips-skew.model"));
  const DiskModel m(r.profile);
  // DiskSim's g1_map_pbn_skew: (head + (heads - 1) x cylinder) track skews of 2, cylinder
  // skews of 3, and the slips at positions below cylinder x 40: 0 for cylinder 0, 1 (5)
  // for cylinder 1, 2 (5, 45) from cylinder 2 on; 20 sectors a track.
  for (std::int64_t c = 0; c < 10; ++c)
    for (std::int32_t h = 0; h < 2; ++h) {
      INFO("cylinder " << c << " head " << h);
      const double slips = c == 0 ? 0 : c == 1 ? 1 : 2;
      const double sectors = 2.0 * (h + c) + 3.0 * c + slips;
      const double want = sectors / 20 - std::floor(sectors / 20);
      CHECK_THAT(m.track_angle(c, h), Catch::Matchers::WithinAbs(want, 1e-12));
    }
  // The slipped sector's LBNs move on within the cylinder (the layout is unchanged).
  CHECK(m.lba_to_chs(5) == Chs{0, 0, 6});
  CHECK(m.lba_to_chs(38) == Chs{1, 0, 0});
}

namespace {

// DiskSim's g4 ltop for g4.model's tree, written from layout_g4.c: the LBN moved on past
// the slips at or before it (slipcount), then the root entry holding it, its cylinder
// (quot x cyllen) and, within the cylinder pattern, the track (head) and sector.
Chs g4_ltop(std::uint64_t lbn) {
  if (lbn == 100) return Chs{5, 1, 9};  // remap_lbn, before the slips
  const std::uint64_t slips[] = {30, 100, 101};
  std::uint64_t phys = lbn;
  for (std::uint64_t s : slips)
    if (s <= phys) ++phys;
  struct Zone { std::uint64_t lbn, cyl, track_lbns; };
  const Zone zones[] = {{0, 0, 12}, {96, 4, 9}, {150, 8, 8}};
  const Zone& z = phys >= 150 ? zones[2] : phys >= 96 ? zones[1] : zones[0];
  const std::uint64_t in = phys - z.lbn, per_cyl = 2 * z.track_lbns;
  return Chs{static_cast<std::int64_t>(z.cyl + in / per_cyl),
             static_cast<std::int32_t>(in % per_cyl / z.track_lbns),
             static_cast<std::uint32_t>(in % z.track_lbns)};
}

// DiskSim's g4_skew for track (c, h) of g4.model: the root's first off (0), the zone
// entry's off plus (c - its cylinder) x alen, the track entry's off; revolutions.
double g4_skew(std::int64_t c, std::int32_t h) {
  struct Zone { std::int64_t cyl; double off, alen, head_off[2]; };
  const Zone zones[] = {{0, 0.0, 0.5, {0.0, 0.25}}, {4, 0.05, 0.4, {0.1, 0.3}}, {8, 0.0, 0.375, {0.0, 0.125}}};
  const Zone& z = c >= 8 ? zones[2] : c >= 4 ? zones[1] : zones[0];
  const double a = 0.0 + z.off + static_cast<double>(c - z.cyl) * z.alen + z.head_off[h];
  return a - std::floor(a);
}

}  // namespace

TEST_CASE("dm_layout_g4: a made-up drive's tree read LBN by LBN and track by track as g4 gives",
          "[disksim]") {
  const DiskSimImport r = import_disksim(cases("g4.model"));
  const DiskModel m(r.profile);
  // 96 + 54 + 28 LBNs in the tree, 3 slipped: 175, the file's Block count.
  REQUIRE(m.lbas() == 175);
  REQUIRE(r.profile.zones.size() == 3);
  CHECK(r.profile.zones[1].spares == 1);
  CHECK(r.profile.zones[2].first_cylinder == 8);  // cylinder 7 holds nothing
  for (std::uint64_t lbn = 0; lbn < 175; ++lbn) {
    INFO("LBN " << lbn);
    CHECK(m.lba_to_chs(lbn) == g4_ltop(lbn));
    CHECK(m.chs_to_lba(g4_ltop(lbn)) == lbn);
  }
  for (std::int64_t c : {0, 1, 3, 4, 5, 6, 8, 9})
    for (std::int32_t h = 0; h < 2; ++h) {
      INFO("cylinder " << c << " head " << h);
      const double got = m.track_angle(c, h), want = g4_skew(c, h);
      CHECK(std::min(std::abs(got - want), 1 - std::abs(got - want)) < 1e-9);
    }
  CHECK(r.ignored.empty());
  CHECK_THROWS_WITH(m.chs_to_lba({1, 0, 6}), Catch::Contains("has no LBA"));  // slipped (30)
  CHECK_THROWS_WITH(m.chs_to_lba({4, 0, 9}), Catch::Contains("has no LBA"));  // a spare
  CHECK_THROWS_WITH(m.chs_to_lba({4, 0, 7}), Catch::Contains("has no LBA"));  // remapped away
  CHECK(r.profile.zones[1].remaps == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{7, 39}});
  // Saved and read back (the gap needs the profile's "layout"), the same disk.
  const DiskModel back(profile_from_json(profile_to_json(r.profile), "g4"));
  CHECK(back.lbas() == 175);
  for (std::uint64_t lbn = 0; lbn < 175; lbn += 7) CHECK(back.lba_to_chs(lbn) == m.lba_to_chs(lbn));
}

TEST_CASE("dm_layout_g4: what the tree can say and a profile cannot is refused by name",
          "[disksim]") {
  const auto refused = [](const std::string& from, const std::string& to) {
    return error_with("g4.model", from, to);
  };
  CHECK_THAT(refused("Remaps = [ 100, 1, 5, 1, 9, 10 ]", "Remaps = [ 5, 1, 4, 0, 9, 10 ]"),
             Catch::StartsWith("g4.model:29: dm_layout_g4: a remap of LBN 5 (zone 0) to another "
                               "zone's sector: not modelled"));
  CHECK_THAT(refused("Remaps = [ 100, 1, 5, 1, 9, 10 ]", "Remaps = [ 100, 1, 5, 1, 8, 10 ]"),
             Catch::Contains("remap [") && Catch::Contains("the spare holds data of its own"));
  CHECK_THAT(refused("12, 0, 0.25, 12, 1, 0.0, 12, 1, TRACK, 0, 1",
                     "12, 0, 0.25, 12, 1, 0.0, 12, 1, TRACK, 0, 0"),
             Catch::Contains("track 1 of the cylinder on head 0 (heads filled in another order") &&
                 Catch::Contains("not modelled"));
  CHECK_THAT(refused("0, 11, 12,", "1, 12, 13,"),
             Catch::Contains("a track pattern from sector 1") && Catch::Contains("not modelled"));
  CHECK_THAT(refused("Slips = [ 30, 1, 100, 2 ]", "Slips = [ 30, 1, 100, -1 ]"),
             Catch::Contains("a negative slip count (-1: spares given back): not modelled"));
  CHECK_THAT(refused("96, 4, 0.05, 18, 1, 0.4, 54, 3, IDX, 1", "96, 4, 0.05, 18, 2, 0.4, 54, 3, IDX, 1"),
             Catch::Contains("cyllen 2 (a pattern over several cylinders, e.g. serpentine): not modelled"));
  CHECK_THAT(refused("0, 0, 0.0, 24, 1, 0.5, 96, 4, IDX, 0", "0, 0, 0.0, 24, 1, 0.5, 90, 4, IDX, 0"),
             Catch::Contains("runlen 90 of the 96 LBNs of its 4 cylinders (only the last zone may "
                             "end early): not modelled"));
  CHECK_THAT(refused("IDX, 2 ]", "TRACK, 2 ]"),
             Catch::Contains("a head after a TRACK child"));
}

TEST_CASE("--set overrides keys as DiskSim's command line does, by component and key",
          "[disksim]") {
  const std::string parv = cases("small.parv");
  const DiskSimImport plain = import_disksim(parv);
  REQUIRE(plain.profile.drive.cache.segments == 4);
  REQUIRE(plain.profile.drive.bus.read_sector == 0.01);
  const auto with = [&](std::vector<std::string> sets) {
    std::vector<Override> o;
    for (const auto& s : sets) o.push_back(parse_override(s));
    return import_disksim(parv, "", o);
  };
  // DiskSim's own example: the buffer off (and the profile still one a profile reader takes).
  const DiskSimImport off = with({"disk0:Enable caching in buffer=0"});
  CHECK(off.profile.drive.cache.segments == 0);
  CHECK(off.profile.drive.cache.write_segments == 0);
  CHECK(profile_from_json(profile_to_json(off.profile), "off").drive == off.profile.drive);
  // Several, in order; a component by prefix and by range; one level into a block value.
  const DiskSimImport r = with({"disk*:Segment size (in blks)=128", "disk0 .. disk3:Number of buffer segments=2",
                                "bus0:Read block transfer time=0.02", "disk0:Model:Block count=1000",
                                "disk0:Number of buffer segments=3"});
  CHECK(r.profile.drive.cache.segment_sectors == 128);
  CHECK(r.profile.drive.cache.segments == 3);
  CHECK(r.profile.drive.bus.read_sector == 0.02);
  CHECK(r.stated_blocks == 1000);
  CHECK(r.profile.source["overrides"].size() == 5);
  // Keys match as the importer reads them: case and blanks aside.
  CHECK(with({"disk0:enable  CACHING in buffer=0"}).profile.drive.cache.segments == 0);
  // A file without instantiations: its blocks by name.
  std::vector<Override> o{parse_override("SMALL:Enable caching in buffer=0")};
  CHECK(import_disksim(cases("small.diskspecs"), "", o).profile.drive.cache.segments == 0);
  // Errors DiskSim passes over in silence.
  CHECK(error_of(parv, {"disk1:Enable caching in buffer=0"}) ==
        "--set 'disk1:Enable caching in buffer=0': no component named 'disk1' in " + parv +
            " (it has: bus0, disk0)");
  CHECK_THAT(error_of(parv, {"disk0:Enable caching=0"}),
             Catch::StartsWith("--set 'disk0:Enable caching=0': the block disksim_disk SMALL (") &&
                 Catch::EndsWith("small.diskspecs:2) has no key 'Enable caching'"));
  CHECK_THAT(error_of(parv, {"disk0:Model=1"}),
             Catch::Contains("'Model' (") && Catch::Contains("is a dm_disk block: only numbers and words"));
  CHECK_THAT(error_of(parv, {"disk0:Number of buffer segments=many"}),
             Catch::Contains("is a number, not the word 'many'"));
  CHECK_THAT(error_of(parv, {"disk0:Number of buffer segments=1.5"}),
             Catch::Contains("--set 'disk0:Number of buffer segments=1.5':1: expected a whole number"));
  CHECK_THAT(error_of(parv, {"disk0=1"}), Catch::Contains("expected COMPONENT:KEY=VALUE"));
  CHECK_THAT(error_of(parv, {"disk0:Segment size (in blks)=[ 1 ]"}), Catch::Contains("is a number, not a list"));
}
