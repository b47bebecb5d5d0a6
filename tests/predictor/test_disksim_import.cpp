// DiskSim 4.0 import on the four validation disks: the layout against the numbers the
// files state, the mechanics, what is reported as ignored, and errors with file:line.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"
#include "predictor/import/disksim_params.hpp"

using namespace disksched;
using namespace disksched::disksim;

namespace {

std::string valid(const std::string& name) { return std::string(DISKSIM_VALID_DIR) + "/" + name; }

struct Imported {
  DiskSimImport r;
  DiskModel m;
  explicit Imported(const std::string& parv) : r(import_disksim(valid(parv))), m(r.profile) {}
};

// Every zone: its LBA count by DiskSim's own rule for the scheme, the first and last LBA
// inside it, the next one in the next zone; a sample of LBAs round trip.
void check_zones(const DiskModel& m, const std::vector<std::uint64_t>& want_lbas) {
  const DiskLayout& l = m.layout();
  REQUIRE(l.zone_count() == want_lbas.size());
  std::uint64_t first = 0;
  for (std::size_t z = 0; z < l.zone_count(); ++z) {
    INFO("zone " << z);
    const ZoneSpec& zs = m.profile().zones[z];
    CHECK(l.zone_lbas(z) == want_lbas[z]);
    CHECK(l.zone_first_lba(z) == first);
    const std::uint64_t last = first + want_lbas[z] - 1;
    for (std::uint64_t lba : {first, first + 1, last - 1, last}) {
      const Chs c = l.to_chs(lba);
      CHECK(c.cylinder >= zs.first_cylinder);
      CHECK(c.cylinder <= zs.last_cylinder);
      CHECK(c.sector < zs.sectors_per_track);
      CHECK(l.to_lba(c) == lba);
    }
    if (z + 1 < l.zone_count()) CHECK(l.to_chs(last + 1).cylinder >= m.profile().zones[z + 1].first_cylinder);
    first = last + 1;
  }
  CHECK(first == l.lbas());
  for (std::uint64_t lba = 0; lba < m.lbas(); lba += 9973) CHECK(m.chs_to_lba(m.lba_to_chs(lba)) == lba);
}

}  // namespace

TEST_CASE("HP C2247A: spare tracks at each zone's end, slipped tracks, 2054864 blocks", "[disksim]") {
  const Imported d("hp_c2247a.parv");
  const DiskModel& m = d.m;
  CHECK(d.r.stated_blocks == 2054864);
  CHECK(m.lbas() == 2054864);
  CHECK(m.profile().name == "HP_C2247A_validate");
  CHECK(m.heads() == 13);
  CHECK(m.cylinders() == 2051);
  CHECK(m.profile().layout.sparing == Sparing::TracksPerZone);
  // Per zone: cylinders x 13 x blocks per track - empty front - spare tracks x blocks per track.
  const std::int64_t cyl[] = {559, 202, 141, 150, 142, 326, 274, 257};
  const std::int64_t spt[] = {96, 92, 88, 84, 80, 72, 64, 56};
  const std::int64_t spares[] = {325, 130, 65, 78, 52, 104, 78, 65};
  std::vector<std::uint64_t> want;
  for (int z = 0; z < 8; ++z)
    want.push_back(static_cast<std::uint64_t>(cyl[z] * 13 * spt[z] - (z == 0 ? 1632 : 0) - spares[z] * spt[z]));
  check_zones(m, want);
  // The empty front is 1632 blocks = 17 tracks: LBA 0 is on track 17 = cylinder 1, head 4.
  CHECK(m.lba_to_chs(0) == Chs{1, 4, 0});
  // Track 468 of zone 0 (cylinder 36, head 0) is slipped: the track before it ends at
  // LBA 43295, the next LBA starts track 469.
  CHECK(m.lba_to_chs(43295) == Chs{35, 12, 95});
  CHECK(m.lba_to_chs(43296) == Chs{36, 1, 0});
  CHECK_THROWS_WITH(m.chs_to_lba({36, 0, 0}), Catch::Contains("has no LBA"));
  // Zone 0's last LBA lies on track 6951 (10 slips before it): cylinder 534, head 9; the
  // 313 tracks after it are spare and the next LBA starts zone 1.
  CHECK(m.lba_to_chs(664799) == Chs{534, 9, 95});
  CHECK(m.lba_to_chs(664800) == Chs{559, 0, 0});
  CHECK_THROWS_WITH(m.chs_to_lba({534, 10, 0}), Catch::Contains("has no LBA"));
  // Zone 1 starts its skews at its own first-block offset, 14 sectors of 92.
  CHECK(m.track_angle(559, 0) == Approx(14.0 / 92));
  CHECK(m.track_angle(559, 1) == Approx(27.0 / 92));
  // Mechanics: hplplus10, head switch, write settle, 5400 rpm.
  CHECK(m.rotation_ms() == Approx(60000.0 / 5400));
  CHECK(m.profile().head_switch_ms == 0.89);
  CHECK(m.profile().write_settle_ms == 0.65);
  CHECK(m.profile().seek.form == SeekCurveSpec::Form::FirstTenTwoPiece);
  CHECK(m.seek_ms(1) == 2.89);
  CHECK(m.seek_ms(10) == 4.99);
  CHECK(m.seek_ms(299) == Approx(3.81 + 0.33 * std::sqrt(299.0)));
  CHECK(m.seek_ms(300) == Approx(7.75 + 0.0059 * 300));
}

TEST_CASE("HP C2247A: a write across zone 0's spare tracks costs what the mechanics say",
          "[disksim]") {
  const Imported d("hp_c2247a.parv");
  const DiskModel& m = d.m;
  const Millis T = m.rotation_ms();
  // 13 sectors from LBA 664795: 5 on cylinder 534 head 9, then zone 1's first 8.
  const HeadState at{0.0, 534, 9, 0.0, 1, {}};
  const Cost c = m.service(at, Op::Write, 664795ull * 512, 13 * 512);
  const Millis start = c.overhead_ms + c.seek_ms + c.rotation_ms;
  const Millis moved = start + 5 * T / 96 + m.move_ms(534, 9, 559, 0, 0.65);
  double wait = m.sector_angle({559, 0, 0}) - m.spin().angle_at(moved);
  wait -= std::floor(wait);
  CHECK(c.transfer_ms == Approx(moved + wait * T + 8 * T / 92 - start).margin(1e-9));
  CHECK(c.transfer_ms < 2 * T);  // not a rotation per spare track (313 of them)
}

TEST_CASE("Seagate Cheetah 9LP: spare sectors per zone, slipped sectors, a gap, 17783240 blocks",
          "[disksim]") {
  const Imported d("cheetah9LP.parv");
  const DiskModel& m = d.m;
  // DiskSim's rule for the zones gives 17918387 blocks (its loader uses that count); the
  // drive's stated capacity is 17783240, and that is what the profile exports.
  CHECK(d.r.stated_blocks == 17783240);
  CHECK(m.layout().lbas() == 17918387);
  CHECK(m.lbas() == 17783240);
  CHECK(d.r.notes.at(0).find("the layout holds 17918387 blocks, the file states Block count = 17783240") == 0);
  CHECK(m.profile().layout.sparing == Sparing::SectorsPerZone);
  std::vector<std::uint64_t> want;
  for (const ZoneSpec& z : m.profile().zones)
    want.push_back(static_cast<std::uint64_t>(z.last_cylinder - z.first_cylinder + 1) * 12 *
                       z.sectors_per_track - z.spares);
  check_zones(m, want);
  CHECK(m.profile().zones[0].spares == 1270);
  // Cylinder 847 lies between zones 0 (0-846) and 1 (848-1643): no data.
  CHECK(m.profile().zones[1].first_cylinder == 848);
  CHECK_THROWS_WITH(m.chs_to_lba({847, 0, 0}), Catch::Contains("no cylinder 847"));
  // Slip 168317 = track 662 (cylinder 55, head 2), sector 169: LBA 168317 moves one on.
  CHECK(m.lba_to_chs(168316) == Chs{55, 2, 168});
  CHECK(m.lba_to_chs(168317) == Chs{55, 2, 170});
  CHECK_THROWS_WITH(m.chs_to_lba({55, 2, 169}), Catch::Contains("has no LBA"));
  // Extracted seeks, extended past the last measured distance (6894) as DiskSim does.
  CHECK(m.profile().seek.points.size() == 106);
  CHECK(m.seek_ms(1) == 0.831);
  CHECK(m.seek_ms(6894) == 10.627);
  CHECK(m.seek_ms(6961) == Approx(10.627 + (10.627 - 10.54) * 67 / 94));
  CHECK(m.rotation_ms() == Approx(60000.0 / 10045));
}

TEST_CASE("IBM 18ES: slips to the zone's end, gaps, 17916240 blocks", "[disksim]") {
  const Imported d("ibm18es.parv");
  const DiskModel& m = d.m;
  CHECK(m.layout().lbas() == 18033753);  // DiskSim's rule: sectors - front - slips, per zone
  CHECK(m.lbas() == 17916240);
  CHECK(m.profile().layout.sparing == Sparing::SectorsAtEnd);
  std::vector<std::uint64_t> want;
  for (const ZoneSpec& z : m.profile().zones)
    want.push_back(static_cast<std::uint64_t>(z.last_cylinder - z.first_cylinder + 1) * 5 *
                       z.sectors_per_track - z.empty_front - z.slips.size());
  CHECK(want[0] == 257 * 5 * 390 - 1950 - 3);
  check_zones(m, want);
  // Zone 0's empty front is 1950 blocks = one cylinder: LBA 0 at cylinder 1. Its first
  // slip, sector 199078 (track 510 = cylinder 102, head 0, sector 178) shifts the rest.
  CHECK(m.lba_to_chs(0) == Chs{1, 0, 0});
  CHECK(m.lba_to_chs(199078 - 1950 - 1) == Chs{102, 0, 177});
  CHECK(m.lba_to_chs(199078 - 1950) == Chs{102, 0, 179});
  CHECK_THROWS_WITH(m.chs_to_lba({257, 0, 0}), Catch::Contains("no cylinder 257"));
  CHECK(m.rotation_ms() == Approx(60000.0 / 7200));
}

TEST_CASE("DEC RZ26: one spare sector per track, an empty front, extracted seeks", "[disksim]") {
  const Imported d("dec_rz26.parv");
  const DiskModel& m = d.m;
  CHECK(m.lbas() == 2050860);
  CHECK(m.profile().layout.sparing == Sparing::SectorsPerTrack);
  check_zones(m, {2599ull * 14 * 57 - 23142});
  // The front is 23142 slots of 57 = 406 tracks: LBA 0 on track 406 (cylinder 29, head 0).
  CHECK(m.lba_to_chs(0) == Chs{29, 0, 0});
  CHECK(m.lba_to_chs(56) == Chs{29, 0, 56});
  CHECK(m.lba_to_chs(57) == Chs{29, 1, 0});  // sector 57 of every track is its spare
  CHECK_THROWS_WITH(m.chs_to_lba({29, 0, 57}), Catch::Contains("has no LBA"));
  CHECK(m.profile().write_settle_ms == -0.483);
  CHECK(m.profile().seek.points.size() == 64);
}

TEST_CASE("keys the profile does not model are reported by name; notes say what is "
          "approximated",
          "[disksim]") {
  const DiskSimImport r = import_disksim(valid("hp_c2247a.parv"));
  const auto has = [&](const std::string& text) {
    for (const auto& line : r.ignored)
      if (line.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(has("disksim_disk HP_C2247A_validate: Never disconnect ("));
  CHECK(has("hp_c2247a.diskspecs:"));
  // The cache, the overheads and the bus's per-block times are the drive's (disksim_drive).
  CHECK_FALSE(has("disksim_disk HP_C2247A_validate: Number of buffer segments ("));
  CHECK_FALSE(has("disksim_bus BUS1 (the disk's bus): Read block transfer time"));
  CHECK(r.profile.drive.cache.segments == 1);  // beside the dedicated write segment
  CHECK(r.profile.drive.bus.read_sector == 0.17010);
  CHECK(has("Full strobe seek time"));  // hplplus10 does not use it
  CHECK_FALSE(has(": Number of data surfaces"));
  CHECK_FALSE(has("Blocks per track"));
  CHECK_FALSE(has("Model ("));
  CHECK(r.files.size() == 3);
  CHECK(r.notes.empty());  // the layout holds exactly the stated blocks
  // The .diskspecs alone, and the .model alone, give the same disk.
  const DiskSimImport specs = import_disksim(valid("hp_c2247a.diskspecs"));
  CHECK(profile_to_json(specs.profile)["zones"] == profile_to_json(r.profile)["zones"]);
  const DiskSimImport model = import_disksim(valid("hp_c2247a_validate.model"));
  CHECK(model.profile.name == "HP_C2247A_validate_model");
  CHECK(DiskModel(model.profile).lbas() == 2054864);
}

TEST_CASE("a malformed or impossible disk file fails with file:line and what was expected",
          "[disksim]") {
  namespace fs = std::filesystem;
  std::string t = (fs::temp_directory_path() / "disksim-import-XXXXXX").string();
  const fs::path dir = mkdtemp(t.data());
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ifstream in(valid("hp_c2247a_validate.model"));
    std::string model((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto [from, to] = std::pair<std::string, std::string>{text.substr(0, text.find('|')),
                                                                text.substr(text.find('|') + 1)};
    REQUIRE(model.find(from) != std::string::npos);
    model.replace(model.find(from), from.size(), to);
    std::ofstream(dir / "d.model") << model;
    try {
      import_disksim((dir / "d.model").string());
    } catch (const ModelError& e) {
      return e.what();
    }
    return "";
  };
  const std::string f = (dir / "d.model").string();
  CHECK(error_of("Sparing scheme used = 1|Sparing scheme used = 5") ==
        f + ":7: 'Sparing scheme used': expected a sparing scheme disksched models: 0-4 or 7-10 "
            "(5 and 6, spares at each cylinder's front, are not modelled), found the number 5");
  CHECK(error_of("Blocks per track = 96|Blocks per track = many") ==
        f + ":13: 'Blocks per track': expected an integer in [1, 1048576], found the word 'many'");
  CHECK(error_of("Seek type = hplplus10|Seek type = cubic") ==
        f + ":156: 'Seek type': expected one of constant, linear, curve, hpl, hplplus10, "
            "extracted, found the word 'cubic'");
  CHECK_THAT(error_of("Head switch time = 0.890000,|"),
             Catch::Contains("dm_mech_g1 block at " + f + ":154: missing 'Head switch time'"));
  CHECK(error_of("   Number of cylinders = 2051,|   Number of cylinders = 2051") ==
        f + ":4: expected ',' or '}' after the value of 'Number of cylinders', found the word 'Block'");
  // Stated, but impossible: more slipped tracks than zone 7's 65 spares could hold.
  CHECK_THAT(error_of("Number of spares = 65,\n            slips = [\n               1512|"
                      "Number of spares = 1,\n            slips = [\n               1512"),
             Catch::Contains("zone 7") && Catch::Contains("3 slips in one sparing unit"));
  fs::remove_all(dir);
}
