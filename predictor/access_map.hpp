// JW Fig. 3: access time from one head position to every (cylinder, sector offset) of a
// disk, and how much of the disk each number of rotations reaches.
#pragma once

#include <cstdint>
#include <vector>

#include "predictor/disk_model.hpp"

namespace disksched {

struct AccessMap {
  std::int64_t from_cylinder = 0;
  std::int32_t from_head = 0;
  std::uint32_t from_sector = 0;
  std::int64_t cylinders = 0;
  std::uint32_t sectors = 0;          // sector offsets per row (the start zone's spt)
  Millis rotation_ms = 0;
  std::vector<Millis> access_ms;      // [cylinder * sectors + offset], head `from_head`
  Millis at(std::int64_t c, std::uint32_t s) const { return access_ms[c * sectors + s]; }
};

// Access time T_A from the head over the start of sector `sector` of (cylinder, head)
// to the start of sector (sector + offset) mod spt of every cylinder (same head, so no
// head switch: JW's plot). On zoned disks the offset is taken in each target zone's
// sectors, scaled to the start zone's count of columns.
AccessMap compute_access_map(const DiskModel& m, std::int64_t cylinder, std::int32_t head,
                             std::uint32_t sector);

// Fraction of the map's points whose access time is <= k rotations, for k = 1..max_k.
std::vector<double> reachable_within_rotations(const AccessMap& map, int max_k);

// The definitions JW's "39.7% of the disk accessible in one rotational latency" could
// mean, each computed on this model (the paper does not say which it used).
struct ReachDefinition {
  const char* name;
  const char* description;
  double fraction;
};
std::vector<ReachDefinition> one_rotation_reach(const DiskModel& m);

}  // namespace disksched
