#include "tools/extract/layout.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched::extract {

const ZoneLayout& Layout::zone_of_cylinder(std::int64_t c) const {
  for (const auto& z : zones)
    if (c >= z.first_cylinder && c < z.first_cylinder + z.cylinders) return z;
  if (!zones.empty() && zones.back().cylinders == 0 && c >= zones.back().first_cylinder) return zones.back();
  throw std::out_of_range(fmt::format("cylinder {} is outside the layout ({} cylinders)", c, cylinders()));
}

const ZoneLayout& Layout::zone_of_pba(std::uint64_t p) const {
  if (zones.empty()) throw std::out_of_range("empty layout");
  auto it = std::upper_bound(zones.begin(), zones.end(), p,
                             [](std::uint64_t v, const ZoneLayout& z) { return v < z.first_pba; });
  return *(it == zones.begin() ? it : it - 1);
}

std::uint64_t Layout::pba(std::int64_t cylinder, std::int32_t head, std::uint32_t sector) const {
  const ZoneLayout& z = zone_of_cylinder(cylinder);
  return z.first_pba +
         (static_cast<std::uint64_t>(cylinder - z.first_cylinder) * static_cast<std::uint64_t>(heads) +
          static_cast<std::uint64_t>(head)) * z.spt + sector;
}

Chs3 Layout::chs(std::uint64_t p) const {
  const ZoneLayout& z = zone_of_pba(p);
  const std::uint64_t rel = p - z.first_pba, track = rel / z.spt;
  const auto h = static_cast<std::uint64_t>(heads);
  return Chs3{z.first_cylinder + static_cast<std::int64_t>(track / h), static_cast<std::int32_t>(track % h),
              static_cast<std::uint32_t>(rel % z.spt)};
}

const Hole* Layout::hole_at(std::uint64_t p) const {
  auto it = std::upper_bound(holes_.begin(), holes_.end(), p,
                             [](std::uint64_t v, const Hole& h) { return v < h.pba; });
  if (it == holes_.begin()) return nullptr;
  --it;
  return p < it->pba + it->count ? &*it : nullptr;
}

std::uint64_t Layout::next_good(std::uint64_t p) const {
  while (const Hole* h = hole_at(p)) p = h->pba + h->count;
  return p;
}

std::uint64_t Layout::lba_of_pba(std::uint64_t p) const {
  p = next_good(p);
  auto it = std::upper_bound(holes_.begin(), holes_.end(), p,
                             [](std::uint64_t v, const Hole& h) { return v < h.pba; });
  if (it == holes_.begin()) return p;
  const auto i = static_cast<std::size_t>(it - holes_.begin()) - 1;
  return p - before_[i] - holes_[i].count;
}

std::uint64_t Layout::pba_of_lba(std::uint64_t lba) const {
  // The last hole that starts at or before this LBA's place pushes it on.
  std::size_t lo = 0, hi = holes_.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (holes_[mid].pba - before_[mid] <= lba)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return lba;
  return lba + before_[lo - 1] + holes_[lo - 1].count;
}

bool Layout::has_data(std::int64_t cylinder, std::int32_t head) const {
  const std::uint64_t p = pba(cylinder, head, 0);
  return next_good(p) < p + zone_of_cylinder(cylinder).spt;
}

void Layout::remove_hole(std::uint64_t p) {
  auto it = std::find_if(holes_.begin(), holes_.end(), [&](const Hole& h) { return h.pba == p; });
  if (it == holes_.end()) return;
  holes_.erase(it);
  before_.assign(holes_.size(), 0);
  for (std::size_t i = 1; i < holes_.size(); ++i) before_[i] = before_[i - 1] + holes_[i - 1].count;
}

void Layout::add_hole(std::uint64_t p, std::uint64_t count, HoleKind kind) {
  if (count == 0) return;
  auto it = std::lower_bound(holes_.begin(), holes_.end(), p,
                             [](const Hole& h, std::uint64_t v) { return h.pba < v; });
  if (it != holes_.end() && it->pba == p && it->count == count) return;
  if ((it != holes_.end() && it->pba < p + count) ||
      (it != holes_.begin() && std::prev(it)->pba + std::prev(it)->count > p))
    throw std::logic_error(fmt::format("sectors {}-{} overlap a known hole in the layout", p, p + count - 1));
  holes_.insert(it, Hole{p, count, kind});
  before_.assign(holes_.size(), 0);
  for (std::size_t i = 1; i < holes_.size(); ++i) before_[i] = before_[i - 1] + holes_[i - 1].count;
}

}  // namespace disksched::extract
