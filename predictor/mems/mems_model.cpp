#include "predictor/mems/mems_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace disksched {

MemsModel::MemsModel(const MemsParams& p)
    : params_(p),
      sled_(p),
      layout_(p),
      row_ms_(1000.0 * layout_.row_bits() / p.access_bits_per_s()) {}

Location MemsModel::locate(std::uint64_t lba, std::uint32_t sectors, Op /*op*/) const {
  const std::uint64_t total = layout_.sectors();
  if (lba >= total || sectors > total - lba)
    throw ModelError(fmt::format("{}: sectors [{}, {}) lie beyond the device ({} sectors)", name(),
                                 lba, lba + sectors, total));
  const MemsAddress a = layout_.address(lba);
  Location l;
  l.lba = lba;
  l.sectors = sectors;
  l.cylinder = a.x;
  l.head = a.group;
  l.y = static_cast<double>(layout_.row_start_y(a.x, a.row));
  l.y_dir = static_cast<std::int8_t>(MemsLayout::direction(a.x));
  l.overhead_ms = params_.overhead_ms;
  return l;
}

Millis MemsModel::seek_ms(std::int64_t distance) const {
  const std::int64_t d = distance < 0 ? -distance : distance;
  if (d >= params_.bits_x)
    throw ModelError(fmt::format("{}: a seek of {} columns does not fit the sled ({} columns)",
                                 name(), distance, params_.bits_x));
  const std::int64_t x0 = (params_.bits_x - d) / 2;
  return sled_.x_seek_ms(x0, x0 + d);
}

HeadState MemsModel::initial_state() const {
  HeadState h;
  h.cylinder = params_.bits_x / 2;
  h.y = static_cast<double>(params_.bits_y / 2);
  h.y_dir = static_cast<std::int8_t>(MemsLayout::direction(h.cylinder));
  return h;
}

HeadState MemsModel::start_state(std::uint64_t lba) const {
  const MemsAddress a = layout_.address(lba);
  HeadState h;
  h.cylinder = a.x;
  h.head = a.group;
  h.y = static_cast<double>(layout_.row_start_y(a.x, a.row));
  h.y_dir = static_cast<std::int8_t>(MemsLayout::direction(a.x));
  return h;
}

HeadState MemsModel::end_state(std::uint64_t lba) const {
  HeadState h = start_state(lba);
  const MemsAddress a = layout_.address(lba);
  h.y = static_cast<double>(layout_.row_end_y(a.x, a.row));
  return h;
}

Cost MemsModel::service(const HeadState& from, Op op, std::uint64_t offset,
                        std::uint32_t length) const {
  Cost c;
  c.end = from;
  c.overhead_ms = params_.overhead_ms;
  const bool media = op == Op::Read || op == Op::Write || op == Op::Zero || op == Op::Cache;
  if (!media || length == 0) {
    // Flush and trim: nothing to position for (the device has no write cache).
    c.end.time_ms = from.time_ms + c.overhead_ms;
    return c;
  }
  if (from.cylinder < 0 || from.cylinder >= params_.bits_x || !(from.y >= 0.0) ||
      !(from.y <= static_cast<double>(params_.bits_y)))
    throw ModelError(fmt::format("{}: head state (x {}, y {}) lies outside the {} x {} tip region",
                                 name(), from.cylinder, from.y, params_.bits_x, params_.bits_y));
  const std::uint32_t sb = params_.sector_bytes;
  const std::uint64_t first = offset / sb;
  const std::uint64_t end = (offset + length + sb - 1) / sb;
  locate(first, static_cast<std::uint32_t>(end - first), op);  // range check
  const std::uint64_t last = end - 1;

  // Walk the request track by track: rows of one (column, group) stream without a gap;
  // the next track starts after a seek from where the previous one ended.
  const std::uint64_t per_track = layout_.sectors_per_track();
  const auto cells = static_cast<std::uint64_t>(layout_.cells_per_row());
  HeadState pos = from;
  Millis transfer = 0.0;
  std::uint64_t lba = first;
  while (lba <= last) {
    const HeadState start = start_state(lba);
    const Millis move = sled_.seek_ms(pos.cylinder, pos.y, pos.y_dir, start.cylinder, start.y,
                                      start.y_dir);
    if (lba == first)
      c.seek_ms = move;
    else
      transfer += move;
    const std::uint64_t track_last = lba - lba % per_track + per_track - 1;
    const std::uint64_t seg_last = std::min(last, track_last);
    const std::uint64_t rows = (seg_last % per_track) / cells - (lba % per_track) / cells + 1;
    transfer += static_cast<double>(rows) * row_ms_;
    pos = end_state(seg_last);
    lba = seg_last + 1;
  }
  c.transfer_ms = transfer;
  c.end = pos;
  c.end.time_ms = from.time_ms + c.overhead_ms + c.seek_ms + c.transfer_ms;
  return c;
}

std::unique_ptr<DeviceModel> make_mems_model() { return std::make_unique<MemsModel>(); }

std::unique_ptr<DeviceModel> make_mems_model(const MemsParams& p) {
  return std::make_unique<MemsModel>(p);
}

}  // namespace disksched
