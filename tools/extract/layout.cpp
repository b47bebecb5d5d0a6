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

bool Layout::is_slipped(std::uint64_t p) const { return std::binary_search(slipped.begin(), slipped.end(), p); }

std::uint64_t Layout::lba_of_pba(std::uint64_t p) const {
  auto it = std::lower_bound(slipped.begin(), slipped.end(), p);
  // Skip a run of slipped sectors starting at p: the LBA is that of the next good one.
  while (it != slipped.end() && *it == p) {
    ++p;
    ++it;
  }
  return p - static_cast<std::uint64_t>(std::lower_bound(slipped.begin(), slipped.end(), p) - slipped.begin());
}

std::uint64_t Layout::pba_of_lba(std::uint64_t lba) const {
  std::uint64_t p = lba;
  for (std::uint64_t d : slipped) {
    if (d <= p)
      ++p;
    else
      break;
  }
  return p;
}

void Layout::add_slipped(std::uint64_t p) {
  auto it = std::lower_bound(slipped.begin(), slipped.end(), p);
  if (it == slipped.end() || *it != p) slipped.insert(it, p);
}

}  // namespace disksched::extract
