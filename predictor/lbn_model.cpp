#include "predictor/lbn_model.hpp"

#include <algorithm>
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

std::optional<LbnModel::Params> LbnModel::fit(const std::vector<TrackerSample>& samples) const {
  // y = a + b * x1 + c * x2, x1 = distance / cylinders, x2 = sectors.
  struct Point {
    double x1, x2, y;
  };
  std::vector<Point> pts;
  for (const auto& s : samples) {
    if (s.op != Op::Read && s.op != Op::Write && s.op != Op::Zero) continue;
    if (s.length == 0) continue;
    const std::uint64_t lba = s.offset / sector_bytes_;
    const auto sectors = static_cast<double>(
        (s.offset + s.length + sector_bytes_ - 1) / sector_bytes_ - lba);
    const double distance = std::llabs(static_cast<std::int64_t>(lba) - s.from.cylinder);
    pts.push_back({distance / static_cast<double>(cylinders()), sectors,
                   s.complete_ms - s.dispatch_ms});
  }
  if (pts.size() < 8) return std::nullopt;
  const double n = static_cast<double>(pts.size());
  double m1 = 0, m2 = 0, my = 0;
  for (const auto& p : pts) {
    m1 += p.x1 / n;
    m2 += p.x2 / n;
    my += p.y / n;
  }
  double s11 = 0, s22 = 0, s12 = 0, s1y = 0, s2y = 0;
  for (const auto& p : pts) {
    const double d1 = p.x1 - m1, d2 = p.x2 - m2, dy = p.y - my;
    s11 += d1 * d1;
    s22 += d2 * d2;
    s12 += d1 * d2;
    s1y += d1 * dy;
    s2y += d2 * dy;
  }
  Params out = params_;
  double b = params_.full_stroke_ms, c = params_.transfer_ms_per_sector;
  const bool vary1 = s11 > 1e-12 * n, vary2 = s22 > 1e-9 * n;
  const double det = s11 * s22 - s12 * s12;
  if (vary1 && vary2 && det > 1e-9 * s11 * s22) {
    b = (s1y * s22 - s2y * s12) / det;
    c = (s2y * s11 - s1y * s12) / det;
  } else if (vary1) {
    b = (s1y - c * s12) / s11;
  } else if (vary2) {
    c = (s2y - b * s12) / s22;
  }
  b = std::max(0.0, b);
  c = std::max(0.0, c);
  out.full_stroke_ms = b;
  out.transfer_ms_per_sector = c;
  out.overhead_ms = std::max(0.0, my - b * m1 - c * m2);
  return out;
}

}  // namespace disksched
