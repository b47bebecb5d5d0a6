#include "predictor/device_model.hpp"

namespace disksched {

void DeviceModel::media_ends(const HeadState& from, Op op, std::uint64_t lba, std::uint64_t count,
                             std::vector<Millis>& out) const {
  out.clear();
  const std::uint32_t sb = sector_bytes();
  HeadState f = from;
  f.time_ms -= locate(lba, 1, op).overhead_ms;
  for (std::uint64_t k = 1; k <= count; ++k) {
    const Cost c = service(f, op, lba * sb, static_cast<std::uint32_t>(k * sb));
    out.push_back(from.time_ms + c.seek_ms + c.rotation_ms + c.transfer_ms);
  }
}

}  // namespace disksched
