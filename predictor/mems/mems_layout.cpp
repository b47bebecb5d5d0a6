#include "predictor/mems/mems_layout.hpp"

#include <fmt/format.h>

#include "predictor/device_model.hpp"

namespace disksched {

MemsLayout::MemsLayout(const MemsParams& p) {
  p.validate();
  servo_ = p.servo_bits;
  row_bits_ = p.servo_bits + p.tip_sector_bits;
  rows_ = static_cast<std::int32_t>((p.bits_y - p.servo_bits) / row_bits_);
  groups_ = p.tips / p.active_tips;
  cells_ = p.active_tips / p.tips_per_sector;
  active_ = p.active_tips;
  tips_per_sector_ = p.tips_per_sector;
  columns_ = p.bits_x;
  const std::int64_t used = static_cast<std::int64_t>(rows_) * row_bits_ + servo_;
  y_base_ = (p.bits_y - used) / 2;
}

MemsAddress MemsLayout::address(std::uint64_t lba) const {
  if (lba >= sectors())
    throw ModelError(fmt::format("mems: LBA {} lies beyond the device ({} sectors)", lba, sectors()));
  MemsAddress a;
  const std::uint64_t per_column = sectors_per_column();
  a.x = static_cast<std::int64_t>(lba / per_column);
  std::uint64_t r = lba % per_column;
  a.group = static_cast<std::int32_t>(r / sectors_per_track());
  r %= sectors_per_track();
  a.row = static_cast<std::int32_t>(r / static_cast<std::uint64_t>(cells_));
  a.cell = static_cast<std::int32_t>(r % static_cast<std::uint64_t>(cells_));
  return a;
}

std::uint64_t MemsLayout::lba(const MemsAddress& a) const {
  if (a.x < 0 || a.x >= columns_ || a.group < 0 || a.group >= groups_ || a.row < 0 ||
      a.row >= rows_ || a.cell < 0 || a.cell >= cells_)
    throw ModelError(fmt::format("mems: address (x {}, group {}, row {}, cell {}) is outside "
                                 "{} x {} x {} x {}",
                                 a.x, a.group, a.row, a.cell, columns_, groups_, rows_, cells_));
  return ((static_cast<std::uint64_t>(a.x) * groups_ + a.group) * rows_ + a.row) * cells_ + a.cell;
}

std::int64_t MemsLayout::row_start_y(std::int64_t x, std::int32_t row) const {
  const std::int64_t b = band(x, row);
  return direction(x) > 0 ? y_base_ + b * row_bits_ : y_base_ + (b + 1) * row_bits_ + servo_;
}

std::int64_t MemsLayout::row_end_y(std::int64_t x, std::int32_t row) const {
  const std::int64_t b = band(x, row);
  return direction(x) > 0 ? y_base_ + (b + 1) * row_bits_ : y_base_ + b * row_bits_ + servo_;
}

}  // namespace disksched
