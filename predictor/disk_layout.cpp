#include "predictor/disk_layout.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace disksched {
namespace {

// Among the positions not in the sorted list r[first, last) (taken relative to `offset`),
// the j-th. With g(i) = r[i] - offset - i non-decreasing, the answer is j plus the
// number of i with g(i) <= j.
std::uint64_t nth_free(const std::uint64_t* first, const std::uint64_t* last,
                       std::uint64_t offset, std::uint64_t j) {
  std::size_t lo = 0, hi = static_cast<std::size_t>(last - first);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (first[mid] - offset - mid <= j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return j + lo;
}

bool contains(const std::vector<std::uint64_t>& v, std::uint64_t x) {
  return std::binary_search(v.begin(), v.end(), x);
}

std::uint64_t count_below(const std::vector<std::uint64_t>& v, std::uint64_t x) {
  return static_cast<std::uint64_t>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
}

const std::pair<std::uint64_t, std::uint64_t>* find_pair(
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& v, std::uint64_t key) {
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const auto& p, std::uint64_t k) { return p.first < k; });
  return it != v.end() && it->first == key ? &*it : nullptr;
}

}  // namespace

namespace {

// Names zone i of profile p in an error.
std::string zone_where(const DiskProfile& p, std::size_t i) {
  const ZoneSpec& zs = p.zones[i];
  return fmt::format("{}: zone {} (cylinders {}-{})", p.name, i, zs.first_cylinder,
                     zs.last_cylinder);
}

// Positions (sectors, or tracks for tracks-per-zone) per sparing unit of a zone of
// `tracks` tracks and `sectors` sectors.
std::uint64_t sparing_unit(const DiskProfile& p, const ZoneSpec& zs, std::uint64_t tracks,
                           std::uint64_t sectors) {
  const auto heads = static_cast<std::uint64_t>(p.heads);
  const std::uint32_t spt = zs.sectors_per_track;
  switch (p.layout.sparing) {
    case Sparing::None: return sectors;
    case Sparing::TracksPerZone: return tracks;
    case Sparing::SectorsPerTrack: return spt;
    case Sparing::SectorsPerCylinder:
    case Sparing::SectorsPerCylinderSlipToEnd: return heads * spt;
    case Sparing::SectorsAtEnd: return zs.spares > 0 ? heads * spt : sectors;
    case Sparing::SectorsPerRange:  // a last range cut short has no spares (DiskSim)
      return static_cast<std::uint64_t>(p.layout.range_cylinders) * heads * spt;
    case Sparing::SectorsPerZone:
    case Sparing::SectorsPerZoneSlipToEnd: return sectors;
  }
  return 0;
}

}  // namespace

DiskLayout::DiskLayout(const DiskProfile& p) : heads_(p.heads), mapping_(p.layout.mapping) {
  std::uint64_t lbn = 0;
  for (std::size_t i = 0; i < p.zones.size(); ++i) {
    zones_.push_back(zone_from_spec(p, i, lbn));
    lbn += zones_.back().lbns;
  }
  cylinders_ = zones_.back().last_cylinder + 1;
  lbns_ = lbn;
  place_remaps(p);
  place_legacy_defects(p);
  lbas_ = lbns_ - legacy_slips_.size();
  single_direct_ = zones_.size() == 1 && zones_.front().direct && legacy_slips_.empty();
}

DiskLayout::Zone DiskLayout::zone_from_spec(const DiskProfile& p, std::size_t i,
                                            std::uint64_t first_lbn) {
  const auto heads = static_cast<std::uint64_t>(p.heads);
  const Sparing sp = p.layout.sparing;
  const ZoneSpec& zs = p.zones[i];
  const auto where = [&] { return zone_where(p, i); };
  Zone z;
  z.first_cylinder = zs.first_cylinder;
  z.last_cylinder = zs.last_cylinder;
  z.spt = zs.sectors_per_track;
  const auto cyls = static_cast<std::uint64_t>(zs.last_cylinder - zs.first_cylinder + 1);
  const std::uint64_t tracks = cyls * heads;
  const std::uint64_t sectors = tracks * z.spt;
  z.track_units = sp == Sparing::TracksPerZone;
  z.slip_to_end = sp == Sparing::SectorsPerCylinderSlipToEnd || sp == Sparing::SectorsAtEnd ||
                  sp == Sparing::SectorsPerZoneSlipToEnd;
  z.positions = z.track_units ? tracks : sectors;
  z.unit = sparing_unit(p, zs, tracks, sectors);
  if (sp == Sparing::None && zs.spares > 0)
    throw ModelError(fmt::format("{}: {} spares but layout.sparing is \"none\": name the sparing "
                                 "scheme that places them",
                                 where(), zs.spares));
  if (sp == Sparing::None && !zs.slips.empty())
    throw ModelError(fmt::format("{}: slips need a sparing scheme (layout.sparing) that says "
                                 "where the slipped data goes",
                                 where()));
  if (zs.spares >= z.unit)
    throw ModelError(fmt::format("{}: {} spares leave no data in a sparing unit of {} {}", where(),
                                 zs.spares, z.unit, z.track_units ? "tracks" : "sectors"));
  z.per_unit = z.unit - zs.spares;
  const std::uint64_t units = z.positions / z.unit;
  // A last unit cut short (a zone that is not a whole number of ranges) is all data.
  const std::uint64_t partial = z.positions % z.unit;
  if (partial > z.per_unit)
    throw ModelError(fmt::format("{}: its last range of {} sectors, cut short, holds more than a "
                                 "whole range's {} data sectors: expected fewer spares than a "
                                 "cylinder's sectors",
                                 where(), partial, z.per_unit));
  place_slips(z, p, i, units);
  const std::uint64_t data = (units * z.per_unit + partial) * (z.track_units ? z.spt : 1) -
                             (z.slip_to_end ? z.slip_data.size() : 0);
  if (zs.empty_front >= data)
    throw ModelError(fmt::format("{}: empty_front {} leaves none of its {} data sectors",
                                 where(), zs.empty_front, data));
  z.front = zs.empty_front;
  z.lbns = data - z.front;
  z.first_lbn = first_lbn;

  for (const auto& [defect, spare] : zs.remaps) {
    if (defect >= z.positions || spare >= z.positions)
      throw ModelError(fmt::format("{}: remap [{}, {}] is beyond the zone's {} {}", where(),
                                   defect, spare, z.positions, z.track_units ? "tracks" : "sectors"));
    z.remap.emplace_back(defect, spare);
    z.remap_back.emplace_back(spare, defect);
  }
  std::sort(z.remap.begin(), z.remap.end());
  std::sort(z.remap_back.begin(), z.remap_back.end());
  z.direct = !z.track_units && z.unit == z.per_unit && z.slips.empty() && z.remap.empty();
  return z;
}

void DiskLayout::place_slips(Zone& z, const DiskProfile& p, std::size_t i, std::uint64_t units) {
  const ZoneSpec& zs = p.zones[i];
  const auto where = [&] { return zone_where(p, i); };
  z.slips = zs.slips;
  std::sort(z.slips.begin(), z.slips.end());
  z.slips.erase(std::unique(z.slips.begin(), z.slips.end()), z.slips.end());
  if (!z.slips.empty() && z.slips.back() >= z.positions)
    throw ModelError(fmt::format("{}: slip {} is beyond the zone's {} {}", where(), z.slips.back(),
                                 z.positions, z.track_units ? "tracks" : "sectors"));
  if (z.slip_to_end) {
    for (std::uint64_t s : z.slips) {
      if (s % z.unit >= z.per_unit)
        throw ModelError(fmt::format("{}: slip {} lies in spare space", where(), s));
      z.slip_data.push_back(s / z.unit * z.per_unit + s % z.unit);
    }
    return;
  }
  // Slips within a unit use its spares; more would spill into the next unit.
  std::size_t k = 0;
  while (k < z.slips.size()) {
    const std::uint64_t u = z.slips[k] / z.unit;
    std::size_t n = 0;
    while (k < z.slips.size() && z.slips[k] / z.unit == u) ++k, ++n;
    const std::uint64_t room = u == units ? 0  // the short last range has no spares
                               : z.unit - z.per_unit - (z.track_units ? zs.remaps.size() : 0);
    if (n > room)
      throw ModelError(fmt::format("{}: {} slips in one sparing unit (from position {}) but "
                                   "{} spare{} to take them",
                                   where(), n, u * z.unit, room, room == 1 ? "" : "s"));
  }
}

void DiskLayout::place_remaps(const DiskProfile& p) {
  // Remaps: the defect must hold data, the spare must not; their LBNs run elsewhere.
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    Zone& z = zones_[i];
    for (std::size_t k = 0; k < z.remap.size(); ++k) {
      const auto [defect, spare] = z.remap[k];
      if (k > 0 && z.remap[k - 1].first == defect)
        throw ModelError(fmt::format("{}: zone {}: defect {} is remapped twice", p.name, i, defect));
      const std::uint32_t last_sector = z.track_units ? z.spt - 1 : 0;
      if (lbn_at(z, spare, 0) || lbn_at(z, spare, last_sector))
        throw ModelError(fmt::format("{}: zone {}: remap [{}, {}]: the spare holds data of its own",
                                     p.name, i, defect, spare));
      std::optional<std::uint64_t> lo, hi;
      for (std::uint32_t s = 0; s <= last_sector; ++s)
        if (auto l = lbn_at(z, defect, s)) {
          if (!lo) lo = l;
          hi = l;
        }
      if (!lo)
        throw ModelError(fmt::format("{}: zone {}: remap [{}, {}]: the defect holds no data (a "
                                     "spare, slipped or front position)",
                                     p.name, i, defect, spare));
      remapped_.emplace_back(z.first_lbn + *lo, z.first_lbn + *hi);
    }
  }
  std::sort(remapped_.begin(), remapped_.end());
}

void DiskLayout::place_legacy_defects(const DiskProfile& p) {
  // The older profiles' defects: slipped over the whole disk's LBNs.
  const auto heads = static_cast<std::uint64_t>(p.heads);
  for (const auto& d : p.defects) {
    if (d.cylinder < 0 || d.cylinder >= cylinders_ || d.head < 0 || d.head >= heads_ || in_gap(d.cylinder))
      throw ModelError(fmt::format("{}: defect {}:{}:{} is not on the disk", p.name, d.cylinder,
                                   d.head, d.sector));
    const Zone& z = zones_[zone_of_cylinder(d.cylinder)];
    if (d.sector >= z.spt)
      throw ModelError(fmt::format("{}: defect {}:{}:{}: the track has {} sectors", p.name,
                                   d.cylinder, d.head, d.sector, z.spt));
    const std::uint64_t t = static_cast<std::uint64_t>(d.cylinder - z.first_cylinder) * heads +
                            static_cast<std::uint64_t>(track_index(d.cylinder, d.head));
    if (auto l = lbn_at(z, z.track_units ? t : t * z.spt + d.sector, d.sector))
      legacy_slips_.push_back(z.first_lbn + *l);
  }
  std::sort(legacy_slips_.begin(), legacy_slips_.end());
  legacy_slips_.erase(std::unique(legacy_slips_.begin(), legacy_slips_.end()), legacy_slips_.end());
  if (legacy_slips_.size() >= lbns_)
    throw ModelError(fmt::format("{}: {} defects leave no sector of the {}", p.name,
                                 legacy_slips_.size(), lbns_));
}

std::uint64_t DiskLayout::zone_first_lba(std::size_t zone) const {
  const std::uint64_t lbn = zones_[zone].first_lbn;
  return lbn - count_below(legacy_slips_, lbn);
}

std::size_t DiskLayout::zone_search(std::int64_t c) const {
  auto it = std::upper_bound(zones_.begin(), zones_.end(), c,
                             [](std::int64_t cyl, const Zone& z) { return cyl < z.first_cylinder; });
  return static_cast<std::size_t>(std::max<std::ptrdiff_t>(it - zones_.begin() - 1, 0));
}

bool DiskLayout::in_gap(std::int64_t c) const {
  return c > zones_[zone_of_cylinder(c)].last_cylinder;
}

std::int32_t DiskLayout::serpentine_index(std::int64_t c, std::int32_t head) const {
  const std::int64_t odd = mapping_ == Mapping::Serpentine
                               ? (c - zones_[zone_of_cylinder(c)].first_cylinder) % 2
                               : mapping_ == Mapping::SerpentineGlobal ? c % 2 : 0;
  return odd != 0 ? heads_ - 1 - head : head;
}

std::size_t DiskLayout::zone_of_lbn(std::uint64_t lbn) const {
  if (zones_.size() == 1) return 0;
  auto it = std::upper_bound(zones_.begin(), zones_.end(), lbn,
                             [](std::uint64_t l, const Zone& z) { return l < z.first_lbn; });
  return static_cast<std::size_t>(it - zones_.begin() - 1);
}

std::uint64_t DiskLayout::position_of(const Zone& z, std::uint64_t slot) const {
  const std::uint64_t* s = z.slips.data();
  if (z.track_units) return nth_free(s, s + z.slips.size(), 0, slot / z.spt);
  if (z.slip_to_end) {
    const std::uint64_t d = nth_free(z.slip_data.data(), z.slip_data.data() + z.slip_data.size(), 0, slot);
    return d / z.per_unit * z.unit + d % z.per_unit;
  }
  const std::uint64_t u = slot / z.per_unit, base = u * z.unit;
  const auto first = std::lower_bound(z.slips.begin(), z.slips.end(), base);
  const auto last = std::lower_bound(first, z.slips.end(), base + z.unit);
  return base + nth_free(z.slips.data() + (first - z.slips.begin()),
                         z.slips.data() + (last - z.slips.begin()), base, slot % z.per_unit);
}

std::optional<std::uint64_t> DiskLayout::slot_of(const Zone& z, std::uint64_t p) const {
  if (z.slip_to_end) {
    const std::uint64_t w = p % z.unit;
    if (w >= z.per_unit) return std::nullopt;
    const std::uint64_t d = p / z.unit * z.per_unit + w;
    if (contains(z.slip_data, d)) return std::nullopt;
    return d - count_below(z.slip_data, d);
  }
  if (contains(z.slips, p)) return std::nullopt;
  const std::uint64_t base = p / z.unit * z.unit;
  const std::uint64_t j = p - base - (count_below(z.slips, p) - count_below(z.slips, base));
  if (j >= z.per_unit) return std::nullopt;
  return p / z.unit * z.per_unit + j;
}

// The zone-relative LBN held by `position` (sector `sector` of it under track units),
// before remaps.
std::optional<std::uint64_t> DiskLayout::lbn_at(const Zone& z, std::uint64_t position,
                                                std::uint32_t sector) const {
  const auto slot = slot_of(z, position);
  if (!slot) return std::nullopt;
  const std::uint64_t s = z.track_units ? *slot * z.spt + sector : *slot;
  if (s < z.front || s - z.front >= z.lbns) return std::nullopt;
  return s - z.front;
}

Chs DiskLayout::chs_of(const Zone& z, std::uint64_t position, std::uint64_t slot) const {
  const std::uint64_t track = z.track_units ? position : position / z.spt;
  const auto sector = static_cast<std::uint32_t>(z.track_units ? slot % z.spt : position % z.spt);
  const auto heads = static_cast<std::uint64_t>(heads_);
  const std::int64_t c = z.first_cylinder + static_cast<std::int64_t>(track / heads);
  return Chs{c, track_index(c, static_cast<std::int32_t>(track % heads)), sector};
}

Chs DiskLayout::lbn_to_chs(std::uint64_t lbn) const {
  const Zone& z = zones_[zone_of_lbn(lbn)];
  const std::uint64_t slot = lbn - z.first_lbn + z.front;
  if (z.direct) return chs_direct(z, slot);
  std::uint64_t p = position_of(z, slot);
  if (const auto* r = find_pair(z.remap, p)) p = r->second;
  return chs_of(z, p, slot);
}

std::uint64_t DiskLayout::lbn_of(std::uint64_t lba) const {
  if (legacy_slips_.empty()) return lba;
  const std::uint64_t* s = legacy_slips_.data();
  return nth_free(s, s + legacy_slips_.size(), 0, lba);
}

std::optional<std::uint64_t> DiskLayout::to_lba(const Chs& chs) const {
  if (chs.cylinder < 0 || chs.cylinder >= cylinders_ || chs.head < 0 || chs.head >= heads_ ||
      in_gap(chs.cylinder))
    throw ModelError(fmt::format("no cylinder {} head {} on the disk", chs.cylinder, chs.head));
  const Zone& z = zones_[zone_of_cylinder(chs.cylinder)];
  if (chs.sector >= z.spt)
    throw ModelError(fmt::format("cylinder {} has {} sectors per track, not sector {}",
                                 chs.cylinder, z.spt, chs.sector));
  const std::uint64_t t = static_cast<std::uint64_t>(chs.cylinder - z.first_cylinder) *
                              static_cast<std::uint64_t>(heads_) +
                          static_cast<std::uint64_t>(track_index(chs.cylinder, chs.head));
  std::uint64_t p = z.track_units ? t : t * z.spt + chs.sector;
  if (find_pair(z.remap, p)) return std::nullopt;  // a defect: its data lies elsewhere
  if (const auto* r = find_pair(z.remap_back, p)) p = r->second;
  const auto l = lbn_at(z, p, chs.sector);
  if (!l) return std::nullopt;
  const std::uint64_t lbn = z.first_lbn + *l;
  if (contains(legacy_slips_, lbn)) return std::nullopt;
  return lbn - count_below(legacy_slips_, lbn);
}

std::uint64_t DiskLayout::run_end(std::uint64_t lba, std::uint64_t last) const {
  Chs end;
  return run_end(lba, last, to_chs(lba), end);
}

std::uint64_t DiskLayout::run_end_general(std::uint64_t lba, std::uint64_t e, const Chs& c0,
                                          Chs& end) const {
  if (!remapped_.empty()) {
    // A remapped range is a run of its own: it lies on its spare.
    const std::uint64_t lbn = nth_free(legacy_slips_.data(),
                                       legacy_slips_.data() + legacy_slips_.size(), 0, lba);
    auto it = std::upper_bound(remapped_.begin(), remapped_.end(), lbn,
                               [](std::uint64_t l, const auto& r) { return l < r.first; });
    const auto to_lba = [&](std::uint64_t n) { return n - count_below(legacy_slips_, n); };
    if (it != remapped_.begin() && (it - 1)->second >= lbn) {
      e = std::min(e, to_lba((it - 1)->second));
    } else if (it != remapped_.end() && to_lba(it->first) <= e) {
      e = to_lba(it->first) - 1;
    }
  }
  if (e == lba) {
    end = c0;
    return e;
  }
  const auto same = [&](const Chs& c) {
    return c.cylinder == c0.cylinder && c.head == c0.head && c.sector >= c0.sector;
  };
  end = to_chs(e);
  if (same(end)) return e;
  std::uint64_t lo = lba, hi = e;  // same(lo), !same(hi)
  end = c0;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const Chs c = to_chs(mid);
    if (same(c)) {
      lo = mid;
      end = c;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace disksched
