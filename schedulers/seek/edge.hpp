// The edges of a device for the edge-to-edge elevators (SCAN, C-SCAN), and the sector
// that takes the arm onto an edge soonest. A trip to the edge is a one-sector read
// (schedulers/request.hpp, Travel): of the sectors on the edge track, the one the
// model says can be reached first from the head, so the trip costs the seek plus
// less than one sector of rotational wait.
#pragma once

#include <cstdint>

#include "predictor/device_model.hpp"

namespace disksched::seek {

class Edges {
 public:
  explicit Edges(const DeviceModel& model);

  // The lowest and highest cylinder (MEMS: x column) holding a block.
  std::int64_t low_cylinder() const { return low_cyl_; }
  std::int64_t high_cylinder() const { return high_cyl_; }
  // The first and last block of the device.
  std::uint64_t low_lba() const { return 0; }
  std::uint64_t high_lba() const { return last_lba_; }

  // The block on the low (`high` false) or high edge track that `from` reaches first.
  std::uint64_t soonest(bool high, const HeadState& from) const;
  // Where the mechanism is after reading block `lba` from `from`.
  HeadState after(const HeadState& from, std::uint64_t lba) const;

 private:
  const DeviceModel& model_;
  std::uint64_t last_lba_;
  std::int64_t low_cyl_;
  std::int64_t high_cyl_;
};

}  // namespace disksched::seek
