#include "emulator/diskemu/config.hpp"

#include <cmath>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "common/units.hpp"
#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"

namespace disksched::diskemu {

namespace {

constexpr std::string_view known_keys =
    "model, file, timescale, jitter, jitter-seed, rpm-error, stats, spin, timer-slack, "
    "rt-priority, drive-queue, drive-policy, drive-age-limit, write-cache, write-cache-high-water, "
    "power-cut-after, power-cut-seed";

std::uint64_t parse_u64(const KeyParsers& p, std::string_view text) {
  std::uint64_t v = 0;
  if (!p.parse_uint64(text, v))
    throw std::invalid_argument(fmt::format("'{}' is not an unsigned integer", text));
  return v;
}

}  // namespace

void DiskemuConfig::set(std::string_view key, std::string_view value, const KeyParsers& p) {
  auto bad = [&](std::string_view expected) {
    return ConfigError(fmt::format("{}={}: {}", key, value, expected));
  };
  try {
    if (key == "model") {
      if (value.empty()) throw bad("expected a built-in model (" + builtin_models_text() +
                      "), fixed:ms=X or a .json profile");
      model = value;
    } else if (key == "file") {
      if (value.empty()) throw bad("expected a path");
      file = std::string(value);
    } else if (key == "timescale") {
      double v = parse_number(value);
      if (!(v > 0.0)) throw bad("expected a number > 0 (0.1 plays ten times faster)");
      timescale = v;
    } else if (key == "jitter") {
      jitter = parse_jitter(value);
    } else if (key == "jitter-seed") {
      jitter_seed = parse_u64(p, value);
    } else if (key == "rpm-error") {
      rpm_error = parse_rpm_error(value);
    } else if (key == "stats") {
      if (value.empty()) throw bad("expected a path");
      stats = std::string(value);
    } else if (key == "spin") {
      double v = parse_duration_ms(value);
      if (!(v >= 0.0) || v > 1000.0) throw bad("expected a duration from 0 to 1s");
      spin_ms = v;
    } else if (key == "timer-slack") {
      double v = value == "default" ? 0.0 : parse_duration_ms(value);
      if (!(v >= 0.0) || v > 1000.0) throw bad("expected 'default' or a duration from 1ns to 1s");
      timer_slack_ms = v;
    } else if (key == "rt-priority") {
      const std::uint64_t v = parse_u64(p, value);
      if (v > 99) throw bad("expected 0 (off) or a SCHED_FIFO priority from 1 to 99");
      rt_priority = static_cast<int>(v);
    } else if (key == "drive-queue") {
      const std::uint64_t v = parse_u64(p, value);
      if (v < 1 || v > 256)
        throw bad("expected the commands the drive holds, 1 (no queueing) to 256; SATA NCQ is 32");
      drive_queue.depth = static_cast<unsigned>(v);
    } else if (key == "drive-policy") {
      // Checked against the model once it is loaded (a MEMS policy on a disk, say).
      const auto [algo, params] = Registry::builtin().parse(value);
      drive_queue.policy = format_spec(*algo, params);
    } else if (key == "drive-age-limit") {
      if (value == "none") {
        drive_queue.age_limit_ms = DriveQueueOptions{}.age_limit_ms;
      } else {
        const double v = parse_duration_ms(value);
        if (!(v > 0.0)) throw bad("expected a duration > 0 (e.g. 500ms) or 'none'");
        drive_queue.age_limit_ms = v;
      }
    } else if (key == "write-cache") {
      std::uint64_t v = 0;
      if (!p.parse_size(value, v)) throw bad("expected a size (0 for write-through, 256M, 64k)");
      write_cache = v;
    } else if (key == "write-cache-high-water") {
      const double v = parse_fraction(value);
      if (!(v >= 0.0 && v <= 1.0)) throw bad("expected a fraction from 0 to 1 (0.75 or 75%)");
      write_cache_high_water = v;
    } else if (key == "power-cut-after") {
      const std::uint64_t v = parse_u64(p, value);
      if (v == 0) throw bad("expected a number of writes >= 1");
      power_cut_after = v;
    } else if (key == "power-cut-seed") {
      power_cut_seed = parse_u64(p, value);
    } else {
      throw ConfigError(fmt::format("unknown parameter '{}' (known: {})", key, known_keys));
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw bad(e.what());
  }
}

void DiskemuConfig::check() const {
  if (model.empty())
    throw ConfigError("the model= parameter is required (a built-in model: " +
                      builtin_models_text() + "; fixed:ms=X or a .json profile)");
  const bool cache = write_cache && *write_cache > 0;
  if (write_cache_high_water && !cache)
    throw ConfigError(
        "write-cache-high-water= needs a write cache: give write-cache=SIZE (e.g. 8M) too");
  // Without write-cache= the profile's write-behind may be the buffer: the plugin checks
  // that once the model is loaded (write_buffer_check).
  if (write_cache && !cache) write_buffer_check(false);
}

void DiskemuConfig::write_buffer_check(bool has_buffer) const {
  if (has_buffer) return;
  for (const auto& [key, given] : {std::pair{"power-cut-after", power_cut_after.has_value()},
                                   std::pair{"power-cut-seed", power_cut_seed.has_value()}})
    if (given)
      throw ConfigError(fmt::format(
          "{}= needs a write cache (without one a power cut loses nothing): give "
          "write-cache=SIZE (e.g. 8M) too, or a model whose profile cache takes writes behind",
          key));
}

}  // namespace disksched::diskemu
