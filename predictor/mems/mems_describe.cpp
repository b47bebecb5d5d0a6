#include "predictor/mems/mems_describe.hpp"

#include <fmt/format.h>

#include "predictor/mems/mems_model.hpp"

namespace disksched {

nlohmann::json describe_mems(const DeviceModel& dm) {
  const auto* m = dynamic_cast<const MemsModel*>(&dm);
  if (m == nullptr)
    throw ModelError(fmt::format("model '{}' is a {} model, not a MEMS one", dm.name(), dm.kind()));
  const MemsParams& p = m->params();
  const MemsLayout& l = m->layout();
  const MemsSled& s = m->sled();
  return {
      {"kind", "mems"},
      {"name", m->name()},
      {"capacity_bytes", m->capacity_bytes()},
      {"sector_bytes", m->sector_bytes()},
      {"sectors", l.sectors()},
      {"tips", p.tips},
      {"active_tips", p.active_tips},
      {"bits_per_tip_x", p.bits_x},
      {"bits_per_tip_y", p.bits_y},
      {"bit_cell_nm", p.bit_cell_nm},
      {"sled_mobility_um", p.mobility_x_m() * 1e6},
      {"sled_acceleration_m_s2", p.accel_m_s2},
      {"sled_access_speed_mm_s", p.access_speed_m_s * 1e3},
      {"sled_resonant_hz", p.resonant_hz},
      {"spring_factor", p.spring_factor},
      {"settle_ms", s.settle_ms()},
      {"turnaround_ms", s.turnaround_ms(static_cast<double>(p.bits_y) / 2, +1)},
      {"row_ms", m->row_ms()},
      {"overhead_ms", p.overhead_ms},
      {"columns", p.bits_x},
      {"layout",
       {{"name", "disk-analogous (Griffin et al. 2000): column, tip group, row, cell"},
        {"tip_sector_bits", p.tip_sector_bits},
        {"servo_bits", p.servo_bits},
        {"tips_per_sector", p.tips_per_sector},
        {"rows_per_track", l.rows()},
        {"tip_groups", l.groups()},
        {"sectors_per_row", l.cells_per_row()},
        {"sectors_per_column", l.sectors_per_column()},
        {"direction", "even columns read moving +y, odd columns moving -y"}}},
  };
}

}  // namespace disksched
