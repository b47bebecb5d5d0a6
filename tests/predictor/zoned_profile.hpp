// A small zoned disk with skews, a head switch, overheads and defects: the geometry
// the HP 97560 lacks, so the general paths are exercised too.
#pragma once

#include "predictor/profile.hpp"

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
  p.seek.form = SeekCurveSpec::Form::ThreePiece;
  p.seek.single_cylinder_ms = 1.0;
  p.seek.short_a = 1.2;
  p.seek.short_b = 0.3;
  p.seek.boundary = 40;
  p.seek.long_a = 2.5;
  p.seek.long_b = 0.05;
  if (with_defects) p.defects = {{0, 0, 5}, {0, 0, 6}, {31, 2, 99}, {99, 3, 79}};
  return p;
}

}  // namespace disksched::testing
