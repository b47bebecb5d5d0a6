// Where logical sectors live on a CMU MEMS device: tip sectors and the LBA layout.
//
// Tip sectors (DiskSim 4.0 G2 facts). Along y, every tip track holds `rows` tip sectors,
// each a servo burst followed by the tip sector's bits, with one more servo burst after
// the last:  [servo][sector 0][servo][sector 1] ... [sector rows-1][servo].
// rows = (bits_y - servo) / (servo + tip_sector) (26 for 2400 bits, 27 for 2500); the
// band is centred in the tip region. Reading a tip sector moving +y starts at the servo
// burst below it; moving -y, at the servo burst above it; either way it takes
// row_bits = servo + tip_sector bits of travel at the access speed, and consecutive tip
// sectors in the direction of travel follow without a gap.
//
// Logical sectors are striped: a 512-byte sector is `tips_per_sector` (64) tip sectors
// at the same (x, y) under 64 tips. The `active_tips` (1280) that may work at once read
// cells_per_row = 20 logical sectors in parallel from one row; the `tips` (6400) form
// groups = 5 such sets, which take separate sweeps.
//
// LBA layout: Griffin et al.'s disk-analogous layout, which Hong used. A bit column x is
// a cylinder, a tip group a track (the disk's head), a row a sector position along the
// track:
//     lba = ((x * groups + group) * rows + row) * cells_per_row + cell
// `row` counts in the direction of access. Even bit columns are read moving +y, odd ones
// moving -y (Hong sec. 4-5), so row 0 of an even column is the lowest tip sector and row
// 0 of an odd column the highest: the end of column x's last sweep is the start of
// column x+1's first, and a sequential stream crosses columns with a one-column x seek.
// Going from one group to the next in the same column needs a sweep back to the start
// (turnaround, y seek, turnaround), which the model charges from the sled's mechanics.
#pragma once

#include <cstdint>

#include "predictor/mems/mems_params.hpp"

namespace disksched {

struct MemsAddress {
  std::int64_t x = 0;      // bit column (cylinder)
  std::int32_t group = 0;  // tip group (track)
  std::int32_t row = 0;    // tip sector along the track, in the direction of access
  std::int32_t cell = 0;   // which logical sector of the row's parallel set
  bool operator==(const MemsAddress&) const = default;
};

class MemsLayout {
 public:
  explicit MemsLayout(const MemsParams& p);

  std::int32_t rows() const { return rows_; }
  std::int32_t groups() const { return groups_; }
  std::int32_t cells_per_row() const { return cells_; }
  std::int32_t row_bits() const { return row_bits_; }
  std::int32_t servo_bits() const { return servo_; }
  std::int64_t y_base() const { return y_base_; }  // lower edge of the lowest servo burst
  std::int64_t columns() const { return columns_; }
  std::uint64_t sectors_per_track() const { return static_cast<std::uint64_t>(rows_) * cells_; }
  std::uint64_t sectors_per_column() const { return sectors_per_track() * groups_; }
  std::uint64_t sectors() const { return sectors_per_column() * static_cast<std::uint64_t>(columns_); }

  // +1 for even bit columns (read moving +y), -1 for odd ones.
  static int direction(std::int64_t x) { return (x & 1) ? -1 : +1; }

  MemsAddress address(std::uint64_t lba) const;    // lba < sectors()
  std::uint64_t lba(const MemsAddress& a) const;
  // The band (0 = lowest) holding access-order row `row` of column x.
  std::int32_t band(std::int64_t x, std::int32_t row) const {
    return direction(x) > 0 ? row : rows_ - 1 - row;
  }
  // y where reading row `row` of column x starts (the servo burst before it, in the
  // direction of access) and where it ends (the last bit of the tip sector).
  std::int64_t row_start_y(std::int64_t x, std::int32_t row) const;
  std::int64_t row_end_y(std::int64_t x, std::int32_t row) const;
  // The first of the tips_per_sector tips that hold this logical sector.
  std::int32_t first_tip(const MemsAddress& a) const { return a.group * active_ + a.cell * tips_per_sector_; }

 private:
  std::int32_t rows_, groups_, cells_, row_bits_, servo_, active_, tips_per_sector_;
  std::int64_t y_base_, columns_;
};

}  // namespace disksched
