// A small zoned disk with skews, a head switch, overheads and defects: the geometry
// the HP 97560 lacks, so the general paths are exercised too.
#pragma once

#include "predictor/profile.hpp"
#include "predictor/seek_forms.hpp"

namespace disksched::testing {

inline DiskProfile zoned_profile(bool with_defects = true) {
  DiskProfile p;
  p.name = "zoned-test";
  p.heads = 4;
  p.rotation_ms = 8.0;  // 7500 RPM
  p.zones = {ZoneSpec{0, 29, 120, {}, {}}, ZoneSpec{30, 59, 100, 12.0, 25.0},
             ZoneSpec{60, 99, 80, {}, {}}};
  p.track_skew_sectors = 10;
  p.cylinder_skew_sectors = 20;
  p.head_switch_ms = 0.8;
  p.overhead_ms = PerOp{0.3, 0.4, 0.1};
  p.completion_ms = PerOp{0.05, 0.07, 0.0};
  p.seek = three_piece_seek(1.0, 1.2, 0.3, 40, 2.5, 0.05);
  if (with_defects) p.defects = {{0, 0, 5}, {0, 0, 6}, {31, 2, 99}, {99, 3, 79}};
  return p;
}

}  // namespace disksched::testing
