// DiskSim's disk block and buses into DriveParams, on the validation disks' own files.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "predictor/import/disksim_drive.hpp"

using namespace disksched;
using namespace disksched::disksim;

namespace {

DriveImport import_of(const std::string& parv, const std::string& disk) {
  const ParamFile f = parse_file(std::string(DISKSIM_VALID_DIR) + "/" + parv);
  const Block* b = f.find_block(disk);
  REQUIRE(b != nullptr);
  return import_drive(f, *b);
}

bool lists(const DriveImport& d, const std::string& prefix) {
  return std::any_of(d.ignored.begin(), d.ignored.end(),
                     [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
}

}  // namespace

TEST_CASE("HP C2247A: overheads, the SCSI bus and a two-segment cache", "[disksim]") {
  const DriveImport d = import_of("hp_c2247a.parv", "HP_C2247A_validate");
  const ControllerParams& c = d.drive.controller;
  CHECK(c.command_ms(false, false, false) == 0.953430);
  CHECK(c.command_ms(false, true, true) == 0.558210);
  CHECK(c.command_ms(true, true, false) == 0.823910);
  CHECK(c.read_completion == 0.056650);
  CHECK(c.write_completion == 0.050450);
  CHECK(c.data_preparation == 0.025190);
  CHECK(c.reselect == 0.162490);
  // The write path's disconnects and the extra write disconnect.
  CHECK(c.write_reselect == 0.162490);
  CHECK(c.extra_reselect == 0.128830);
  CHECK(c.write_disconnect == 0.165650);
  CHECK(c.min_write_seek == 0.6);
  CHECK(c.extra_write_disconnect);
  CHECK(c.extra_command == 0.642440);
  CHECK(c.extra_disconnect == 0.045510);
  CHECK(c.extra_inter_disconnect == 0.428850);
  CHECK(c.extra_disconnect2 == 0.134370);
  CHECK(c.extra_seek_delta == 0.25);
  // bus1, between the controller and the disk; bus0 (all zeros) is on the path too.
  CHECK(d.drive.bus.read_sector == 0.17010);
  CHECK(d.drive.bus.write_sector == 0.18686);
  const CacheParams& k = d.drive.cache;
  // DiskSim's 2 segments are 1 for reads and the dedicated write segment.
  CHECK(k.segments == 1);
  CHECK(k.segment_sectors == 256);
  CHECK(k.write_segments == 1);
  CHECK(k.separate_write_segment);
  CHECK(k.continuous_read == 3);
  CHECK(k.max_read_ahead == 128);
  CHECK(k.read_ahead_over_requested);
  CHECK(k.read_ahead_on_idle_hit);
  CHECK(k.fast_write == 0);
  CHECK(k.combine_sequential_writes);
  CHECK(k.read_hits_on_write_data);
  CHECK(k.high_water == 0.75);
  // What the drive model leaves out is listed by name and place.
  CHECK(lists(d, "Never disconnect (" ));
  CHECK(lists(d, "Read disconnect afterread ("));
  CHECK_FALSE(lists(d, "Extradisc command overhead ("));
  CHECK(lists(d, "Scheduler ("));
  CHECK_FALSE(lists(d, "Model ("));
  CHECK_FALSE(lists(d, "Fast write level ("));
}

TEST_CASE("Cheetah 9LP and IBM 18ES: write-behind, and the disk's bulk rate as the bus",
          "[disksim]") {
  const DriveImport c = import_of("cheetah9LP.parv", "SEAGATE_ST39102LW_validate");
  CHECK(c.drive.cache.fast_write == 2);
  CHECK(c.drive.cache.segments == 3);
  CHECK(c.drive.cache.segment_sectors == 561);
  CHECK(c.drive.bus.read_sector == 0.105);
  CHECK(c.drive.controller.command_ms(false, false, true) == 0.273);
  const DriveImport i = import_of("ibm18es.parv", "IBM_DNES-309170W_validate");
  CHECK(i.drive.cache.segments == 6);  // and the dedicated write segment
  CHECK(i.drive.cache.read_any_free_blocks);
  CHECK_FALSE(i.drive.cache.read_hits_on_write_data);
  CHECK(i.drive.bus.write_sector == 0.101);
  const DriveImport r = import_of("dec_rz26.parv", "DEC_RZ26_validate");
  CHECK(r.drive.cache.segments == 9);  // and the dedicated write segment
  CHECK(r.drive.bus.read_sector == 0.07069);
  CHECK(r.drive.controller.write_completion == 0.113);
}

TEST_CASE("a cache key of the wrong kind is refused with its file and line", "[disksim]") {
  const ParamFile f = parse_text(
      "disksim_disk D {\n  Number of buffer segments = 2,\n  Segment size (in blks) = many\n}\n",
      "d.diskspecs", "");
  try {
    import_drive(f, *f.find_block("D"));
    FAIL("no error");
  } catch (const ParamError& e) {
    CHECK(std::string(e.what()).rfind("d.diskspecs:3: expected a number in [0, 16777216] for "
                                      "'Segment size (in blks)', not ",
                                      0) == 0);
  }
}

TEST_CASE("a dedicated write segment is one of DiskSim's buffer segments", "[disksim]") {
  const auto drive = [](const std::string& segments) {
    const ParamFile f = parse_text("disksim_disk D {\n  Number of buffer segments = " + segments +
                                       ",\n  Use separate write segment = 1\n}\n",
                                   "d.diskspecs", "");
    return import_drive(f, *f.find_block("D"));
  };
  CHECK(drive("4").drive.cache.segments == 3);
  CHECK(drive("4").drive.cache.separate_write_segment);
  try {
    drive("1");
    FAIL("no error");
  } catch (const ParamError& e) {
    CHECK(std::string(e.what()).rfind("d.diskspecs:2: 'Use separate write segment' takes one of "
                                      "the 'Number of buffer segments', so there must be 2 or "
                                      "more, not 1",
                                      0) == 0);
  }
}
