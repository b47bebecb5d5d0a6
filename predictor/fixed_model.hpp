// `fixed:ms=X`: every request takes exactly X ms, wherever it is. For queueing-theory
// checks (M/D/1) and for tests that need a device with no geometry.
#pragma once

#include "predictor/device_model.hpp"

namespace disksched {

class FixedModel final : public DeviceModel {
 public:
  FixedModel(Millis service_ms, std::uint64_t capacity_bytes, std::uint32_t sector_bytes = 512);

  std::string_view kind() const override { return "fixed"; }
  std::string name() const override;
  std::uint64_t capacity_bytes() const override { return capacity_; }
  std::uint32_t sector_bytes() const override { return sector_bytes_; }
  std::int64_t cylinders() const override { return 1; }
  bool rotational() const override { return false; }
  Location locate(std::uint64_t lba, std::uint32_t sectors, Op op) const override;
  Millis positioning_ms(const HeadState& from, const Location& to) const override;
  Millis seek_ms(std::int64_t distance) const override;
  Cost service(const HeadState& from, Op op, std::uint64_t offset,
               std::uint32_t length) const override;

 private:
  Millis service_ms_;
  std::uint64_t capacity_;
  std::uint32_t sector_bytes_;
};

}  // namespace disksched
