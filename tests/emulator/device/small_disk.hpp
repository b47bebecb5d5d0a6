// The small disk the drive-cache and write-cache tests serve in virtual time:
// 10 cylinders x 2 heads x 100 sectors, 10 ms a rotation (a sector is 0.1 ms), phase 0,
// a seek of any distance 1 ms, no head switch and no overheads: LBA 0 is under the head
// at time 0, and LBA = cylinder * 200 + head * 100 + sector.
#pragma once

#include <string>

#include "predictor/profile.hpp"

namespace disksched::testing {

inline DiskProfile small_disk(std::string name) {
  DiskProfile p;
  p.name = std::move(name);
  p.heads = 2;
  p.rotation_ms = 10.0;
  p.zones = {ZoneSpec{0, 9, 100, {}, {}}};
  p.seek.form = SeekCurveSpec::Form::TwoPiece;
  p.seek.short_a = 1.0;
  p.seek.boundary = 5;
  p.seek.long_a = 1.0;
  return p;
}

}  // namespace disksched::testing
