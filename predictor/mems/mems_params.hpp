// Parameters of the CMU G2 MEMS-based storage device (Hong et al. 2003, Table 1; Griffin
// et al. SIGMETRICS 2000) and of its tip-sector layout (DiskSim 4.0's G2 device).
//
// Built-in default (`mems`): Table 1 with Hong's sec. 7.2 change of the sled mobility from
// 100 um to 96 um, i.e. 2400 x 2400 bits per tip region, so that Hong's zones (60 x 600,
// 120 x 1200, 240 x 2400 bits) tile the sled. Hong ran all his zone experiments on that
// sled. `MemsParams::table1()` is Table 1 as printed (2500 x 2500 bits, 100 um).
#pragma once

#include <cstdint>
#include <string>

namespace disksched {

struct MemsParams {
  std::string name = "mems";

  // Media (Table 1).
  std::int64_t bits_x = 2400;          // bit columns per tip region (x)
  std::int64_t bits_y = 2400;          // bits per tip track (y)
  double bit_cell_nm = 40.0;           // square bit cell
  std::int32_t tips = 6400;            // usable probe tips
  std::int32_t active_tips = 1280;     // tips that may be active at once

  // Sled (Table 1). The actuators give the same acceleration in x and y.
  double accel_m_s2 = 803.6;           // actuator acceleration, F/m
  double access_speed_m_s = 0.028;     // y velocity while bits pass under the tips
  double resonant_hz = 739.0;          // settle in x = constants / (2 pi f)
  double settle_time_constants = 1.0;  // DiskSim G2: 1.0 (Hong: settle = 0.215 ms)
  // Spring restoring force at full displacement (half the mobility from the centre) as a
  // fraction of the actuator force: k * (L / 2) = spring_factor * F (CMU's definition).
  double spring_factor = 0.75;

  // Tip sectors (DiskSim 4.0 G2 facts): every tip sector is a servo burst followed by
  // 80 bits, 64 of data and 16 of ECC / encoding; a 512-byte logical sector is striped
  // across 64 tips (64 x 64 data bits = 4096 bits).
  std::int32_t tip_sector_bits = 80;
  std::int32_t servo_bits = 10;
  std::int32_t tips_per_sector = 64;
  std::uint32_t sector_bytes = 512;

  // Command overhead per media request (DiskSim's G2 uses 0.2 ms; Hong's equations and
  // the seed's numbers have none, so the default is none).
  double overhead_ms = 0.0;

  double mobility_x_m() const { return static_cast<double>(bits_x) * bit_cell_nm * 1e-9; }
  double mobility_y_m() const { return static_cast<double>(bits_y) * bit_cell_nm * 1e-9; }
  double settle_ms() const;
  // Bits per second passing under a tip at the access speed.
  double access_bits_per_s() const { return access_speed_m_s / (bit_cell_nm * 1e-9); }

  // Throws ModelError naming the first field that is out of range.
  void validate() const;

  static MemsParams hong2003();  // the built-in default (2400 x 2400, 96 um)
  static MemsParams table1();    // Table 1 as printed (2500 x 2500, 100 um)
};

}  // namespace disksched
