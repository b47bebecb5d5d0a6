// The logical layout found so far: zones of whole cylinders, each with its sectors
// per track, and the slipped (defective, skipped) sectors located so far. Physical
// sector indices (PBA) count every sector in (cylinder, head, sector) order; an LBA
// is a PBA minus the slipped sectors before it, as in predictor/disk_model.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace disksched::extract {

struct ZoneLayout {
  std::int64_t first_cylinder = 0;
  std::int64_t cylinders = 0;
  std::uint32_t spt = 0;
  std::uint64_t first_pba = 0;
  std::optional<double> track_skew;     // sectors, measured
  std::optional<double> cylinder_skew;  // sectors, measured
  std::int64_t last_cylinder() const { return first_cylinder + cylinders - 1; }
};

struct Chs3 {
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  std::uint32_t sector = 0;
};

struct Layout {
  std::int32_t heads = 0;
  std::vector<ZoneLayout> zones;
  std::vector<std::uint64_t> slipped;  // sorted PBAs
  std::uint64_t sectors = 0;           // the device's capacity in LBAs

  std::int64_t cylinders() const {
    return zones.empty() ? 0 : zones.back().first_cylinder + zones.back().cylinders;
  }
  const ZoneLayout& zone_of_cylinder(std::int64_t c) const;
  const ZoneLayout& zone_of_pba(std::uint64_t pba) const;
  std::uint32_t spt_of_cylinder(std::int64_t c) const { return zone_of_cylinder(c).spt; }

  std::uint64_t pba(std::int64_t cylinder, std::int32_t head, std::uint32_t sector) const;
  Chs3 chs(std::uint64_t pba) const;
  bool is_slipped(std::uint64_t pba) const;
  std::uint64_t lba_of_pba(std::uint64_t pba) const;  // of the first good sector at or after
  std::uint64_t pba_of_lba(std::uint64_t lba) const;
  void add_slipped(std::uint64_t pba);
  // LBA of (c, h, s), or of the next good sector when that one is slipped.
  std::uint64_t lba(std::int64_t cylinder, std::int32_t head, std::uint32_t sector) const {
    return lba_of_pba(pba(cylinder, head, sector));
  }
  std::uint64_t zone_first_lba(const ZoneLayout& z) const { return lba_of_pba(z.first_pba); }
};

}  // namespace disksched::extract
