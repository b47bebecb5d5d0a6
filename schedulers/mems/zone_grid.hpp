// Hong's zones on the MEMS sled (Hong sec. 6, 7.2, Fig. 3) and their traversal order.
//
// The sled's bit positions are cut into a grid of cells `zone_x` bit columns wide and
// `zone_y` bits tall, counted from the sled's corner (x0, y0). Each cell holds two
// zones, one of its even-indexed bit columns and one of its odd ones, because the y
// access velocity alternates sign between them (Hong sec. 5, Fig. 3).
//
// Zones are visited in C-SCAN order (Fig. 3): down the first column of cells, up the
// next, down the one after (a serpentine in y), moving across x, and from the last
// column back to the first; within a cell the even zone before the odd one. The order
// is a total order on ZoneKey, so "the next zone with requests" is a map lookup.
//
// Pyramiding (Hong sec. 9, Fig. 6): at level L, 2^L x 2^L neighbouring cells are
// scheduled as one; the even/odd split is kept. Level 0 is the plain grid.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>

namespace disksched::mems {

// A location's cell at level 0, and which bit columns it is on.
struct ZoneCell {
  std::int64_t col = 0;  // along x
  std::int64_t row = 0;  // along y
  int parity = 0;        // 0 = even bit column, 1 = odd
  bool operator==(const ZoneCell&) const = default;
};

// Position of a zone in the traversal order at one pyramid level.
struct ZoneKey {
  std::int64_t col = 0;
  std::int64_t serpentine_row = 0;  // row on even columns, -row on odd columns
  int parity = 0;
  auto operator<=>(const ZoneKey&) const = default;
};

class ZoneGrid {
 public:
  ZoneGrid(double zone_x_bits, double zone_y_bits, double x0 = 0, double y0 = 0)
      : zx_(zone_x_bits), zy_(zone_y_bits), x0_(x0), y0_(y0) {}

  double zone_x() const { return zx_; }
  double zone_y() const { return zy_; }

  // The cell of bit column x (the Location's `cylinder`) and y bit `y`.
  ZoneCell cell(std::int64_t x, double y) const {
    ZoneCell c;
    c.col = static_cast<std::int64_t>(std::floor((static_cast<double>(x) - x0_) / zx_));
    c.row = static_cast<std::int64_t>(std::floor((y - y0_) / zy_));
    c.parity = static_cast<int>(x & 1);
    return c;
  }

  // The zone holding `c` at pyramid level `level` (2^level x 2^level cells merged).
  static ZoneKey key(const ZoneCell& c, int level) {
    ZoneKey k;
    k.col = c.col >> level;  // arithmetic shift: floor division by 2^level
    std::int64_t row = c.row >> level;
    k.serpentine_row = (k.col & 1) == 0 ? row : -row;
    k.parity = c.parity;
    return k;
  }

 private:
  double zx_, zy_, x0_, y0_;
};

}  // namespace disksched::mems
