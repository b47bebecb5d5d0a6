#include "predictor/fixed_model.hpp"

#include <fmt/format.h>

namespace disksched {

FixedModel::FixedModel(Millis service_ms, std::uint64_t capacity_bytes, std::uint32_t sector_bytes)
    : service_ms_(service_ms), capacity_(capacity_bytes), sector_bytes_(sector_bytes) {
  if (!(service_ms >= 0.0)) throw ModelError(fmt::format("fixed: ms={} must be >= 0", service_ms));
}

std::string FixedModel::name() const { return fmt::format("fixed:ms={}", service_ms_); }

Location FixedModel::locate(std::uint64_t lba, std::uint32_t sectors, Op /*op*/) const {
  if ((lba + sectors) * sector_bytes_ > capacity_)
    throw ModelError(fmt::format("{}: sectors [{}, {}) lie beyond the device ({} sectors)", name(),
                                 lba, lba + sectors, capacity_ / sector_bytes_));
  Location l;
  l.lba = lba;
  l.sectors = sectors;
  return l;
}

// The whole service time is charged as transfer, so positioning is free and every
// scheduler sees equal costs.
Millis FixedModel::positioning_ms(const HeadState&, const Location&) const { return 0.0; }

Millis FixedModel::seek_ms(std::int64_t) const { return 0.0; }

Cost FixedModel::service(const HeadState& from, Op, std::uint64_t, std::uint32_t) const {
  Cost c;
  c.transfer_ms = service_ms_;
  c.end = from;
  c.end.time_ms = from.time_ms + service_ms_;
  return c;
}

}  // namespace disksched
