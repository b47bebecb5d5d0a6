// Where each LBA of a zoned disk lies: zones (with gaps between them and empty space at
// their front), spare space by the drive's sparing scheme, slipped sectors or tracks,
// remapped defects and serpentine track order (DiskSim's dm_layout_g1), and the older
// profiles' disk-wide slipped defects.
//
// Within a zone, positions are counted from sector 0 of its first track in track order
// (track t = cylinder offset x heads + index on the cylinder); a position is a sector, or
// a whole track under tracks-per-zone sparing. A zone's slots are its data positions in
// order, spare positions left out, slipped ones skipped (within their sparing unit, or
// across the rest of the zone under a slip-to-end scheme); LBA = slot - empty_front.
// A remapped defect's LBA lies at its spare position instead. Both directions cost
// O(log zones + log slips + log defects).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "predictor/profile.hpp"

namespace disksched {

struct Chs {
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  std::uint32_t sector = 0;
  bool operator==(const Chs&) const = default;
};

class DiskLayout {
 public:
  DiskLayout() = default;
  // Throws ModelError naming the zone and what is inconsistent (slips beyond the spares,
  // a remap onto a data sector, ...).
  explicit DiskLayout(const DiskProfile& p);

  std::uint64_t lbas() const { return lbas_; }
  std::int64_t cylinders() const { return cylinders_; }
  std::size_t zone_count() const { return zones_.size(); }
  std::uint64_t zone_lbas(std::size_t zone) const { return zones_[zone].lbns; }
  std::uint64_t zone_first_lba(std::size_t zone) const;
  // The zone holding `cylinder`, or for a cylinder in a gap the zone before it.
  std::size_t zone_of_cylinder(std::int64_t cylinder) const {
    return zones_.size() == 1 ? 0 : zone_search(cylinder);
  }
  bool in_gap(std::int64_t cylinder) const;
  // The index of `head` in the order the cylinder's tracks are filled (serpentine).
  std::int32_t track_index(std::int64_t cylinder, std::int32_t head) const {
    return mapping_ == Mapping::Conventional ? head : serpentine_index(cylinder, head);
  }

  Chs to_chs(std::uint64_t lba) const {  // lba < lbas()
    // One zone of plain sectors without defects (the usual profile): arithmetic, inline,
    // as every request's service finds a CHS or two.
    if (single_direct_) {
      const Zone& z = zones_.front();
      return chs_direct(z, lba + z.front);
    }
    return lbn_to_chs(lbn_of(lba));
  }
  // The LBA stored at `chs`; none for a slipped, spare, defective or front sector.
  // Throws ModelError for a sector the disk does not have.
  std::optional<std::uint64_t> to_lba(const Chs& chs) const;
  // The largest e in [lba, last] such that lba..e lie on lba's track in rising sectors.
  std::uint64_t run_end(std::uint64_t lba, std::uint64_t last) const;
  // The same for a caller that has lba's CHS (`start` == to_chs(lba)) and wants the
  // run end's (`end`): a request's service then finds each CHS once.
  std::uint64_t run_end(std::uint64_t lba, std::uint64_t last, const Chs& start, Chs& end) const {
    const Zone& z = zones_[zone_of_cylinder(start.cylinder)];
    const std::uint64_t e = std::min<std::uint64_t>(last, lba + (z.spt - start.sector) - 1);
    if (z.direct && legacy_slips_.empty() && e < z.first_lbn + z.lbns) {
      // Consecutive LBAs of a direct zone are consecutive sectors of the track (a remap
      // stays within its own zone, so none of another zone's can fall in this run).
      end = Chs{start.cylinder, start.head, start.sector + static_cast<std::uint32_t>(e - lba)};
      return e;
    }
    return run_end_general(lba, e, start, end);
  }

 private:
  struct Zone {
    std::int64_t first_cylinder = 0, last_cylinder = 0;
    std::uint32_t spt = 0;
    bool track_units = false;     // positions are tracks
    bool slip_to_end = false;     // slips shift the rest of the zone, not of their unit
    std::uint64_t positions = 0;  // sectors (tracks) in the zone
    std::uint64_t unit = 0;       // positions per sparing unit
    std::uint64_t per_unit = 0;   // data positions per unit
    std::uint64_t front = 0;      // empty slots
    std::uint64_t first_lbn = 0, lbns = 0;
    std::vector<std::uint64_t> slips;       // sorted positions
    std::vector<std::uint64_t> slip_data;   // slip_to_end: the slips as data indices
    std::vector<std::pair<std::uint64_t, std::uint64_t>> remap, remap_back;  // sorted by .first
    // Every slot is its position (sectors, no spares, slips or remaps): a request's
    // CHS and run end are then plain arithmetic, the common case the hot path takes.
    bool direct = false;
  };
  // The constructor's steps: one zone from its spec, its slips, then the remaps and the
  // older profiles' defects over all zones.
  static Zone zone_from_spec(const DiskProfile& p, std::size_t i, std::uint64_t first_lbn);
  static void place_slips(Zone& z, const DiskProfile& p, std::size_t i, std::uint64_t units);
  void place_remaps(const DiskProfile& p);
  void place_legacy_defects(const DiskProfile& p);
  std::optional<std::uint64_t> slot_of(const Zone& z, std::uint64_t position) const;
  std::uint64_t position_of(const Zone& z, std::uint64_t slot) const;
  Chs chs_of(const Zone& z, std::uint64_t position, std::uint64_t slot) const;
  // chs_of(z, slot, slot) of a direct zone (sector positions).
  Chs chs_direct(const Zone& z, std::uint64_t slot) const {
    const std::uint64_t track = slot / z.spt;
    const auto sector = static_cast<std::uint32_t>(slot % z.spt);
    const auto heads = static_cast<std::uint64_t>(heads_);
    const std::int64_t c = z.first_cylinder + static_cast<std::int64_t>(track / heads);
    return Chs{c, track_index(c, static_cast<std::int32_t>(track % heads)), sector};
  }
  // run_end past its direct-zone case: `e` is the end of lba's track clipped to `last`.
  std::uint64_t run_end_general(std::uint64_t lba, std::uint64_t e, const Chs& start,
                                Chs& end) const;
  std::optional<std::uint64_t> lbn_at(const Zone& z, std::uint64_t position, std::uint32_t sector) const;
  Chs lbn_to_chs(std::uint64_t lbn) const;
  std::size_t zone_of_lbn(std::uint64_t lbn) const;
  std::size_t zone_search(std::int64_t cylinder) const;
  std::int32_t serpentine_index(std::int64_t cylinder, std::int32_t head) const;
  std::uint64_t lbn_of(std::uint64_t lba) const;

  int heads_ = 1;
  Mapping mapping_ = Mapping::Conventional;
  std::vector<Zone> zones_;
  std::int64_t cylinders_ = 0;
  std::uint64_t lbns_ = 0, lbas_ = 0;
  std::vector<std::uint64_t> legacy_slips_;  // the older profiles' defects, as sorted LBNs
  std::vector<std::pair<std::uint64_t, std::uint64_t>> remapped_;  // LBN ranges, sorted
  bool single_direct_ = false;  // one direct zone, no legacy slips: to_chs is arithmetic
};

}  // namespace disksched
