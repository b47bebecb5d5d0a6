#include "predictor/mems/mems_params.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "predictor/device_model.hpp"

namespace disksched {

double MemsParams::settle_ms() const {
  return 1000.0 * settle_time_constants / (2.0 * std::numbers::pi * resonant_hz);
}

void MemsParams::validate() const {
  auto bad = [&](const char* key, auto value, const char* expected) {
    throw ModelError(fmt::format("mems model '{}': {} = {} is invalid; expected {}", name, key,
                                 value, expected));
  };
  if (!(bits_x >= 2 && bits_x <= 1'000'000)) bad("bits_x", bits_x, "2 .. 1000000");
  if (!(bits_y >= 2 && bits_y <= 1'000'000)) bad("bits_y", bits_y, "2 .. 1000000");
  if (!(bit_cell_nm > 0 && std::isfinite(bit_cell_nm))) bad("bit_cell_nm", bit_cell_nm, "> 0");
  if (!(tips > 0)) bad("tips", tips, "> 0");
  if (!(active_tips > 0 && active_tips <= tips && tips % active_tips == 0))
    bad("active_tips", active_tips, "a divisor of tips");
  if (!(tips_per_sector > 0 && active_tips % tips_per_sector == 0))
    bad("tips_per_sector", tips_per_sector, "a divisor of active_tips");
  if (!(sector_bytes > 0 && (sector_bytes * 8) % static_cast<std::uint32_t>(tips_per_sector) == 0))
    bad("sector_bytes", sector_bytes, "a multiple of tips_per_sector / 8 bytes");
  const auto data_bits = static_cast<std::int64_t>(sector_bytes) * 8 / tips_per_sector;
  if (!(tip_sector_bits >= data_bits))
    bad("tip_sector_bits", tip_sector_bits,
        fmt::format(">= {} data bits per tip sector", data_bits).c_str());
  if (!(servo_bits >= 0)) bad("servo_bits", servo_bits, ">= 0");
  if (!(bits_y >= 2 * servo_bits + tip_sector_bits))
    bad("bits_y", bits_y, "room for at least one servo burst + tip sector + servo burst");
  if (!(accel_m_s2 > 0 && std::isfinite(accel_m_s2))) bad("accel_m_s2", accel_m_s2, "> 0");
  if (!(access_speed_m_s > 0 && std::isfinite(access_speed_m_s)))
    bad("access_speed_m_s", access_speed_m_s, "> 0");
  if (!(resonant_hz > 0 && std::isfinite(resonant_hz))) bad("resonant_hz", resonant_hz, "> 0");
  if (!(settle_time_constants >= 0 && std::isfinite(settle_time_constants)))
    bad("settle_time_constants", settle_time_constants, ">= 0");
  // At 1 the spring would balance the actuator at the edge and a seek outward could stall.
  if (!(spring_factor >= 0 && spring_factor < 1))
    bad("spring_factor", spring_factor, "0 <= spring_factor < 1");
  if (!(overhead_ms >= 0 && std::isfinite(overhead_ms))) bad("overhead_ms", overhead_ms, ">= 0");
}

MemsParams MemsParams::hong2003() { return MemsParams{}; }

MemsParams MemsParams::table1() {
  MemsParams p;
  p.name = "mems-table1";
  p.bits_x = 2500;
  p.bits_y = 2500;
  return p;
}

}  // namespace disksched
