// The logical layout found so far: zones of whole cylinders, each with its sectors
// per track, and the physical sectors that hold no LBA: slipped (defective, skipped)
// sectors, an empty front before LBA 0, slipped tracks and spare tracks at a zone's
// end. Physical sector indices (PBA) count every sector in (cylinder, head, sector)
// order; an LBA is a PBA minus the sectors without an LBA before it, as in
// predictor/disk_layout.hpp.
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

// A run of physical sectors without an LBA, by what it is (what the profile calls it).
enum class HoleKind {
  Sector,       // a slipped sector (the profile's `defects`)
  Front,        // before LBA 0 on its cylinder (the first zone's `empty_front`)
  Track,        // a slipped track (a zone's `slips` under tracks-per-zone sparing)
  SpareTracks,  // spare tracks at a zone's end (a zone's `spares`)
};

struct Hole {
  std::uint64_t pba = 0, count = 0;
  HoleKind kind = HoleKind::Sector;
};

struct Layout {
  std::int32_t heads = 0;
  std::vector<ZoneLayout> zones;
  std::uint64_t sectors = 0;  // the device's capacity in LBAs

  std::int64_t cylinders() const {
    return zones.empty() ? 0 : zones.back().first_cylinder + zones.back().cylinders;
  }
  const ZoneLayout& zone_of_cylinder(std::int64_t c) const;
  const ZoneLayout& zone_of_pba(std::uint64_t pba) const;
  std::uint32_t spt_of_cylinder(std::int64_t c) const { return zone_of_cylinder(c).spt; }

  std::uint64_t pba(std::int64_t cylinder, std::int32_t head, std::uint32_t sector) const;
  Chs3 chs(std::uint64_t pba) const;
  bool is_slipped(std::uint64_t pba) const { return hole_at(pba) != nullptr; }
  std::uint64_t next_good(std::uint64_t pba) const;  // the first sector at or after with an LBA
  std::uint64_t lba_of_pba(std::uint64_t pba) const;  // of the first good sector at or after
  std::uint64_t pba_of_lba(std::uint64_t lba) const;
  void add_slipped(std::uint64_t pba) { add_hole(pba, 1, HoleKind::Sector); }
  // Sectors [pba, pba + count) hold no LBA; they must not overlap a hole already known.
  void add_hole(std::uint64_t pba, std::uint64_t count, HoleKind kind);
  void remove_hole(std::uint64_t pba);  // the hole that starts there
  const std::vector<Hole>& holes() const { return holes_; }
  // Whether track (c, h) holds LBAs (it is not in the front, slipped or a spare).
  bool has_data(std::int64_t cylinder, std::int32_t head) const;
  const Hole* hole_at(std::uint64_t pba) const;
  // LBA of (c, h, s), or of the next good sector when that one has none.
  std::uint64_t lba(std::int64_t cylinder, std::int32_t head, std::uint32_t sector) const {
    return lba_of_pba(pba(cylinder, head, sector));
  }
  std::uint64_t zone_first_lba(const ZoneLayout& z) const { return lba_of_pba(z.first_pba); }

 private:
  std::vector<Hole> holes_;          // sorted by pba, disjoint
  std::vector<std::uint64_t> before_;  // sectors in the holes before holes_[i]
};

}  // namespace disksched::extract
