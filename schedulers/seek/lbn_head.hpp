// Where the head is, as a logical block number, for the LBN-ordered schedulers (SSTF by
// LBN and SSWT, Deodhar & Naik sec. 5). Like the Linux elevators DN built on, it is
// the block just past the last request this scheduler dispatched. Before the first
// dispatch (or after the queue was handed over from another scheduler) it is estimated
// from the head's cylinder, in proportion to the device's capacity.
#pragma once

#include <cstdint>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched::seek {

class LbnHead {
 public:
  explicit LbnHead(const DeviceModel& model)
      : blocks_(model.capacity_bytes() / model.sector_bytes()), cylinders_(model.cylinders()) {}

  std::uint64_t at(const HeadState& head) const {
    if (known_) return lbn_;
    if (cylinders_ <= 1 || head.cylinder <= 0) return 0;
    long double frac = static_cast<long double>(head.cylinder) / static_cast<long double>(cylinders_);
    return static_cast<std::uint64_t>(frac * static_cast<long double>(blocks_));
  }
  void dispatched(const Request& r) {
    lbn_ = r.loc.lba + r.loc.sectors;
    known_ = true;
  }

 private:
  std::uint64_t blocks_;
  std::int64_t cylinders_;
  std::uint64_t lbn_ = 0;
  bool known_ = false;
};

}  // namespace disksched::seek
