// The small disk the drive-cache and write-cache tests serve in virtual time:
// 10 cylinders x 2 heads x 100 sectors, 10 ms a rotation (a sector is 0.1 ms), phase 0,
// a seek of any distance 1 ms, no head switch and no overheads: LBA 0 is under the head
// at time 0, and LBA = cylinder * 200 + head * 100 + sector.
#pragma once

#include <cstdint>
#include <string>

#include "predictor/profile.hpp"
#include "predictor/seek_forms.hpp"

namespace disksched::testing {

inline constexpr std::uint32_t kSector = 512;  // bytes
inline constexpr double kEps = 1e-9;           // ms: times in virtual time agree to this

inline DiskProfile small_disk(std::string name) {
  DiskProfile p;
  p.name = std::move(name);
  p.heads = 2;
  p.rotation_ms = 10.0;
  p.zones = {ZoneSpec{0, 9, 100, {}, {}}};
  p.seek = two_piece_seek(1.0, 0.0, 5, 1.0, 0.0);  // 1 ms at any distance
  return p;
}

// A drive in front of it whose read hit costs 0.5 ms of command overhead, with two
// segments of 200 sectors and read-ahead after a read (at most 50 sectors).
inline DriveParams read_ahead_drive() {
  DriveParams d;
  d.has_controller = d.has_cache = true;
  d.controller.command[0][0][0] = 0.5;  // read hit after read
  d.cache = CacheParams{.segments = 2, .segment_sectors = 200, .write_segments = 2,
                        .continuous_read = 3, .max_read_ahead = 50};
  return d;
}

}  // namespace disksched::testing
