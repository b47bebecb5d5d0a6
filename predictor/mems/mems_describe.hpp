// What `disksched model show mems` prints about a MEMS model.
#pragma once

#include <nlohmann/json.hpp>

#include "predictor/device_model.hpp"

namespace disksched {

// Throws ModelError when `m` is not a MemsModel. Keys: kind, name, capacity_bytes,
// sector_bytes, sectors, tips, active_tips, bits_per_tip_x, bits_per_tip_y, bit_cell_nm,
// sled_mobility_um, sled_acceleration_m_s2, sled_access_speed_mm_s, sled_resonant_hz,
// spring_factor, settle_ms, turnaround_ms (at the centre), row_ms, overhead_ms, columns,
// and `layout` (tip sectors, rows, groups, sectors per row / column, direction rule).
nlohmann::json describe_mems(const DeviceModel& m);

}  // namespace disksched
