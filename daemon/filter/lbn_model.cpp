#include "daemon/filter/lbn_model.hpp"

#include <cstdlib>

#include <fmt/format.h>

namespace disksched {

LbnModel::LbnModel(std::uint64_t capacity_bytes, std::uint32_t sector_bytes)
    : LbnModel(capacity_bytes, sector_bytes, Params{}) {}

LbnModel::LbnModel(std::uint64_t capacity_bytes, std::uint32_t sector_bytes, Params params)
    : capacity_(capacity_bytes), sector_bytes_(sector_bytes), params_(params) {
  if (sector_bytes == 0) throw ModelError("lbn: sector size must be > 0");
  if (capacity_bytes < sector_bytes)
    throw ModelError(fmt::format("lbn: capacity {} bytes holds no {}-byte sector", capacity_bytes,
                                 sector_bytes));
}

std::string LbnModel::name() const {
  return fmt::format("lbn:capacity={},sector={}", capacity_, sector_bytes_);
}

std::int64_t LbnModel::cylinders() const {
  return static_cast<std::int64_t>(capacity_ / sector_bytes_);
}

Location LbnModel::locate(std::uint64_t lba, std::uint32_t sectors, Op op) const {
  const std::uint64_t total = capacity_ / sector_bytes_;
  if (lba + sectors > total)
    throw ModelError(fmt::format("{}: sectors [{}, {}) lie beyond the device ({} sectors)", name(),
                                 lba, lba + sectors, total));
  Location l;
  l.lba = lba;
  l.sectors = sectors;
  l.cylinder = static_cast<std::int64_t>(lba);
  l.overhead_ms = op == Op::Flush ? 0.0 : params_.overhead_ms;
  return l;
}

Millis LbnModel::seek_ms(std::int64_t distance) const {
  return params_.full_stroke_ms * static_cast<double>(std::llabs(distance)) /
         static_cast<double>(cylinders());
}

Millis LbnModel::positioning_ms(const HeadState& from, const Location& to) const {
  return to.overhead_ms + seek_ms(to.cylinder - from.cylinder);
}

Cost LbnModel::service(const HeadState& from, Op op, std::uint64_t offset,
                       std::uint32_t length) const {
  Cost c;
  c.end = from;
  if (op == Op::Flush || length == 0) {
    c.end.time_ms = from.time_ms;
    return c;
  }
  const std::uint64_t lba = offset / sector_bytes_;
  const auto sectors =
      static_cast<std::uint32_t>((offset + length + sector_bytes_ - 1) / sector_bytes_ - lba);
  const Location to = locate(lba, sectors, op);
  c.overhead_ms = to.overhead_ms;
  c.seek_ms = seek_ms(to.cylinder - from.cylinder);
  c.transfer_ms = sectors * params_.transfer_ms_per_sector;
  c.end.cylinder = static_cast<std::int64_t>(lba + sectors);
  c.end.time_ms = from.time_ms + c.service_ms();
  return c;
}

}  // namespace disksched
