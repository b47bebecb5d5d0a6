// The diskemu plugin's parameters, parsed and checked without nbdkit (so they are unit
// tested). Each key is documented in nbdkit-diskemu-plugin.pod and in `config_help`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/key_parsers.hpp"
#include "common/key_table.hpp"
#include "emulator/device/drive_queue.hpp"
#include "emulator/device/jitter.hpp"
#include "emulator/device/rpm_error.hpp"
#include "predictor/device_model.hpp"

namespace disksched::diskemu {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DiskemuConfig {
  std::string model;                 // model=: a built-in name or a .json profile
  std::optional<std::string> file;   // file=: back the data with this file
  double timescale = 1.0;            // timescale=: real time per device time
  JitterSpec jitter;                 // jitter=
  std::uint64_t jitter_seed = 1;     // jitter-seed=
  RpmError rpm_error;                // rpm-error=
  std::optional<std::string> stats;  // stats=: JSON statistics file
  Millis spin_ms = 0.2;              // spin=: busy-wait this long before each completion
  Millis timer_slack_ms = 1e-6;      // timer-slack=: 0 leaves the kernel's default
  int rt_priority = 0;               // rt-priority=: SCHED_FIFO while waiting (0: off)
  // drive-queue=, drive-policy=, drive-window=, drive-age-limit=: the drive's own
  // command queue (depth 1: none, as before; window 0: the policy sees every command).
  DriveQueueOptions drive_queue{.depth = 1, .policy = "satf", .age_limit_ms = 1000.0};
  // write-cache=SIZE: a volatile write cache of SIZE bytes (0: write-through); not given:
  // the device as before (writes as the profile says, flush and FUA advertised).
  std::optional<std::uint64_t> write_cache;
  std::optional<double> write_cache_high_water;  // write-cache-high-water=FRACTION
  std::optional<std::uint64_t> power_cut_after;  // power-cut-after=N: a cut after N writes
  // power-cut-seed=N: the k-th cut (from 0) keeps a part of the writes buffered since
  // the last flush seeded by N + k (WriteCacheStore::hold, cut)
  // whatever the timing model destaged; not given: the destage order alone decides.
  std::optional<std::uint64_t> power_cut_seed;

  // Applies one key=value, counts read by `p` (nbdkit's parsers in the plugin). Throws
  // ConfigError naming the key, the value and what was expected; unknown keys are errors
  // too.
  void set(std::string_view key, std::string_view value, const KeyParsers& p);
  // Checks that required keys were given. Throws ConfigError.
  void check() const;
  // Checks the power-cut keys against whether the device has a write buffer (write-cache=
  // or the profile's write-behind). Throws ConfigError.
  void write_buffer_check(bool has_buffer) const;
};

// The plugin's keys, one row a key (name, value, help, setter).
std::span<const KeyRow<DiskemuConfig>> diskemu_keys();
// The text of config_help, made from diskemu_keys() (it lists the built-in models).
std::string key_help_text();

}  // namespace disksched::diskemu
