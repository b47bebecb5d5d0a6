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

std::uint64_t parse_u64(const KeyParsers& p, std::string_view text) {
  std::uint64_t v = 0;
  if (!p.parse_uint64(text, v))
    throw std::invalid_argument(fmt::format("'{}' is not an unsigned integer", text));
  return v;
}

constexpr auto* bad = &bad_value<ConfigError>;

// The keys' setters, one a key (the table below says which).
using Config = DiskemuConfig;
using Key = std::string_view;
using Value = std::string_view;

void set_model(Config& c, Key key, Value value, const KeyParsers&) {
  if (value.empty())
    throw bad(key, value, "expected a built-in model (" + builtin_models_text() +
                              "), fixed:ms=X or a .json profile");
  c.model = value;
}

void set_file(Config& c, Key key, Value value, const KeyParsers&) {
  if (value.empty()) throw bad(key, value, "expected a path");
  c.file = std::string(value);
}

void set_timescale(Config& c, Key key, Value value, const KeyParsers&) {
  double v = parse_number(value);
  if (!(v > 0.0)) throw bad(key, value, "expected a number > 0 (0.1 plays ten times faster)");
  c.timescale = v;
}

void set_jitter(Config& c, Key, Value value, const KeyParsers&) { c.jitter = parse_jitter(value); }

void set_jitter_seed(Config& c, Key, Value value, const KeyParsers& p) {
  c.jitter_seed = parse_u64(p, value);
}

void set_rpm_error(Config& c, Key, Value value, const KeyParsers&) {
  c.rpm_error = parse_rpm_error(value);
}

void set_stats(Config& c, Key key, Value value, const KeyParsers&) {
  if (value.empty()) throw bad(key, value, "expected a path");
  c.stats = std::string(value);
}

void set_spin(Config& c, Key key, Value value, const KeyParsers&) {
  double v = parse_duration_ms(value);
  if (!(v >= 0.0) || v > 1000.0) throw bad(key, value, "expected a duration from 0 to 1s");
  c.spin_ms = v;
}

void set_timer_slack(Config& c, Key key, Value value, const KeyParsers&) {
  double v = value == "default" ? 0.0 : parse_duration_ms(value);
  if (!(v >= 0.0) || v > 1000.0)
    throw bad(key, value, "expected 'default' or a duration from 1ns to 1s");
  c.timer_slack_ms = v;
}

void set_rt_priority(Config& c, Key key, Value value, const KeyParsers& p) {
  const std::uint64_t v = parse_u64(p, value);
  if (v > 99) throw bad(key, value, "expected 0 (off) or a SCHED_FIFO priority from 1 to 99");
  c.rt_priority = static_cast<int>(v);
}

void set_drive_queue(Config& c, Key key, Value value, const KeyParsers& p) {
  const std::uint64_t v = parse_u64(p, value);
  if (v < 1 || v > 256)
    throw bad(key, value,
              "expected the commands the drive holds, 1 (no queueing) to 256; SATA NCQ is 32");
  c.drive_queue.depth = static_cast<unsigned>(v);
}

void set_drive_window(Config& c, Key key, Value value, const KeyParsers& p) {
  const std::uint64_t v = parse_u64(p, value);
  if (v > 256)
    throw bad(key, value,
              "expected the oldest commands the firmware reorders among, 0 (all) to 256");
  c.drive_queue.window = static_cast<unsigned>(v);
}

// Checked against the model once it is loaded (a MEMS policy on a disk, say).
void set_drive_policy(Config& c, Key, Value value, const KeyParsers&) {
  const auto [algo, params] = Registry::builtin().parse(value);
  c.drive_queue.policy = format_spec(*algo, params);
}

void set_drive_age_limit(Config& c, Key key, Value value, const KeyParsers&) {
  if (value == "none") {
    c.drive_queue.age_limit_ms = DriveQueueOptions{}.age_limit_ms;
    return;
  }
  const double v = parse_duration_ms(value);
  if (!(v > 0.0)) throw bad(key, value, "expected a duration > 0 (e.g. 500ms) or 'none'");
  c.drive_queue.age_limit_ms = v;
}

void set_write_cache(Config& c, Key key, Value value, const KeyParsers& p) {
  std::uint64_t v = 0;
  if (!p.parse_size(value, v))
    throw bad(key, value, "expected a size (0 for write-through, 256M, 64k)");
  c.write_cache = v;
}

void set_write_cache_high_water(Config& c, Key key, Value value, const KeyParsers&) {
  const double v = parse_fraction(value);
  if (!(v >= 0.0 && v <= 1.0)) throw bad(key, value, "expected a fraction from 0 to 1 (0.75 or 75%)");
  c.write_cache_high_water = v;
}

void set_power_cut_after(Config& c, Key key, Value value, const KeyParsers& p) {
  const std::uint64_t v = parse_u64(p, value);
  if (v == 0) throw bad(key, value, "expected a number of writes >= 1");
  c.power_cut_after = v;
}

void set_power_cut_seed(Config& c, Key, Value value, const KeyParsers& p) {
  c.power_cut_seed = parse_u64(p, value);
}

// One row a key: name, value, help (config_help and the man page's PARAMETERS), setter.
// clang-format off
constexpr KeyRow<DiskemuConfig> kKeys[] = {
    {{"model", "NAME|PROFILE.json", "(required) a built-in model (below), fixed:ms=X[,capacity=B], or a JSON geometry profile."}, set_model},
    {{"file", "PATH", "Keep the data in PATH (created and extended sparsely to the device size); default: sparse memory."}, set_file},
    {{"timescale", "F", "Real time per device time (default 1; 0.1 plays 10x faster)."}, set_timescale},
    {{"jitter", "none|exp:MEAN|uniform:MAX", "Random extra service time per request, device time with a unit (e.g. exp:0.05ms). Default none."}, set_jitter},
    {{"jitter-seed", "N", "Seed of the jitter generator (default 1)."}, set_jitter_seed},
    {{"rpm-error", "E[,drift=D]", "True rotation speed is (1+E+D*t) times the model's, t in device seconds; fractions or percentages (0.1%)."}, set_rpm_error},
    {{"stats", "FILE", "Write JSON statistics (requests, service time, lateness p50/p99/max) at exit and on SIGUSR1."}, set_stats},
    {{"spin", "DURATION", "Busy-wait this long before each completion (default 200us)."}, set_spin},
    {{"timer-slack", "DURATION|default", "Timer slack of the serving threads (default 1ns)."}, set_timer_slack},
    {{"rt-priority", "N", "Wait for completions at SCHED_FIFO priority N (1-99), so a busy machine does not delay them; default 0 (off)."}, set_rt_priority},
    {{"drive-queue", "N", "Commands the drive holds and reorders itself (default 1: no queueing; SATA NCQ is 32). Beyond N they wait in order."}, set_drive_queue},
    {{"drive-policy", "SPEC", "The drive's firmware policy, a scheduler spec (fcfs, satf, asatf:w=30, ...; default satf)."}, set_drive_policy},
    {{"drive-window", "N", "The firmware reorders only the oldest N commands it holds (default 0: all; a desktop drive: about 4)."}, set_drive_window},
    {{"drive-age-limit", "DURATION|none", "A command held longer goes next (default 1s)."}, set_drive_age_limit},
    {{"write-cache", "SIZE", "A volatile write cache of SIZE bytes: writes complete from it, flush and FUA reach the media; 0: write-through (no flush or FUA offered). Not given: writes go through as the profile says."}, set_write_cache},
    {{"write-cache-high-water", "F", "Above this fraction full, destaging goes first (default 0.75)."}, set_write_cache_high_water},
    {{"power-cut-after", "N", "Cut the power once, after the Nth write (SIGUSR2 cuts it at any time): unwritten cache contents are lost."}, set_power_cut_after},
    {{"power-cut-seed", "N", "A cut keeps a part of the writes since the last flush seeded by N (N+1 for the next cut, ...): the same writes repeat the image."}, set_power_cut_seed},
};
// clang-format on

}  // namespace

std::span<const KeyRow<DiskemuConfig>> diskemu_keys() { return kKeys; }

std::string key_help_text() {
  return key_help(key_docs(diskemu_keys())) + "\nBuilt-in models: " + builtin_models_text() + ".";
}

void DiskemuConfig::set(std::string_view key, std::string_view value, const KeyParsers& p) {
  const KeyRow<DiskemuConfig>* row = find_key(diskemu_keys(), key);
  if (row == nullptr)
    throw ConfigError(fmt::format("unknown parameter '{}' (known: {})", key,
                                  key_names(key_docs(diskemu_keys()))));
  try {
    row->set(*this, key, value, p);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw bad(key, value, e.what());
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
