#include "predictor/drive_params.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

namespace disksched {
namespace {

using nlohmann::json;

constexpr double kMaxMs = 1e6;

// One block's fields, with errors in the profile's words:
// "profile 'ORIGIN': field 'BLOCK.KEY': value V: expected WHAT".
class Block {
 public:
  Block(const json& obj, std::string origin, std::string name)
      : obj_(obj), origin_(std::move(origin)), name_(std::move(name)) {
    if (!obj_.is_object()) fail("", obj_, "an object");
  }
  [[noreturn]] void fail(const std::string& key, const json& v, const std::string& what) const {
    throw ModelError(fmt::format("profile '{}': field '{}': value {}: expected {}", origin_,
                                 key.empty() ? name_ : name_ + "." + key, v.dump(), what));
  }
  void only(const std::set<std::string>& keys) const {
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (keys.count(it.key()) == 0) {
        std::string valid;
        for (const auto& k : keys) valid += (valid.empty() ? "" : ", ") + k;
        throw ModelError(fmt::format("profile '{}': unknown field '{}.{}'; valid: {}", origin_,
                                     name_, it.key(), valid));
      }
  }
  double number(const std::string& key, double lo, double hi) const {
    if (!obj_.contains(key)) return 0.0;
    const json& v = obj_.at(key);
    const std::string what = fmt::format("a number in [{}, {}]", lo, hi);
    if (!v.is_number()) fail(key, v, what);
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi) fail(key, v, what);
    return d;
  }
  unsigned integer(const std::string& key, unsigned hi) const {
    if (!obj_.contains(key)) return 0;
    const json& v = obj_.at(key);
    const std::string what = fmt::format("an integer in [0, {}]", hi);
    if (!v.is_number_integer()) fail(key, v, what);
    const auto i = v.get<std::int64_t>();
    if (i < 0 || i > static_cast<std::int64_t>(hi)) fail(key, v, what);
    return static_cast<unsigned>(i);
  }
  bool flag(const std::string& key) const {
    if (!obj_.contains(key)) return false;
    const json& v = obj_.at(key);
    if (!v.is_boolean()) fail(key, v, "true or false");
    return v.get<bool>();
  }

 private:
  const json& obj_;
  std::string origin_, name_;
};

// "read_hit_after_write_ms" and its place in ControllerParams::command.
struct CommandKey {
  const char* name;
  bool write, miss, after_write;
};
constexpr CommandKey kCommandKeys[] = {
    {"read_hit_after_read_ms", false, false, false},
    {"read_hit_after_write_ms", false, false, true},
    {"read_miss_after_read_ms", false, true, false},
    {"read_miss_after_write_ms", false, true, true},
    {"write_hit_after_read_ms", true, false, false},
    {"write_hit_after_write_ms", true, false, true},
    {"write_miss_after_read_ms", true, true, false},
    {"write_miss_after_write_ms", true, true, true},
};

// The controller's later keys, written only when set (older profiles stay as they were).
struct ExtraKey {
  const char* name;
  Millis ControllerParams::*field;
};
constexpr ExtraKey kExtraKeys[] = {
    {"write_disconnect_ms", &ControllerParams::write_disconnect},
    {"write_reselect_ms", &ControllerParams::write_reselect},
    {"min_write_seek_ms", &ControllerParams::min_write_seek},
    {"extra_command_ms", &ControllerParams::extra_command},
    {"extra_disconnect_ms", &ControllerParams::extra_disconnect},
    {"extra_inter_disconnect_ms", &ControllerParams::extra_inter_disconnect},
    {"extra_disconnect2_ms", &ControllerParams::extra_disconnect2},
    {"extra_seek_delta_ms", &ControllerParams::extra_seek_delta},
    {"extra_reselect_ms", &ControllerParams::extra_reselect},
};

ControllerParams read_controller(const Block& b) {
  std::set<std::string> keys{"read_completion_ms", "write_completion_ms", "data_preparation_ms",
                             "reselect_ms"};
  for (const auto& k : kExtraKeys) keys.insert(k.name);
  keys.insert("extra_write_disconnect");
  for (const auto& k : kCommandKeys) keys.insert(k.name);
  b.only(keys);
  ControllerParams c;
  for (const auto& k : kCommandKeys) c.command[k.write][k.miss][k.after_write] = b.number(k.name, 0, kMaxMs);
  c.read_completion = b.number("read_completion_ms", 0, kMaxMs);
  c.write_completion = b.number("write_completion_ms", 0, kMaxMs);
  c.data_preparation = b.number("data_preparation_ms", 0, kMaxMs);
  c.reselect = b.number("reselect_ms", 0, kMaxMs);
  for (const auto& k : kExtraKeys) c.*k.field = b.number(k.name, 0, kMaxMs);
  c.extra_write_disconnect = b.flag("extra_write_disconnect");
  return c;
}

constexpr unsigned kMaxSectors = 1u << 24;  // 8 GiB of 512 B sectors per segment

CacheParams read_cache(const Block& b, const json& raw) {
  b.only({"segments", "segment_sectors", "write_segments", "separate_write_segment",
          "continuous_read", "min_read_ahead", "max_read_ahead", "read_ahead_over_requested",
          "forget_sent", "read_ahead_wait", "read_ahead_on_idle_hit", "read_any_free_blocks", "fast_write",
          "combine_sequential_writes", "high_water", "low_water", "read_hits_on_write_data",
          "write_buffer_bytes", "write_buffer_high_water", "write_buffer_window"});
  CacheParams c;
  c.segments = b.integer("segments", 1024);
  c.segment_sectors = b.integer("segment_sectors", kMaxSectors);
  if (c.segments > 0 && c.segment_sectors == 0)
    b.fail("segment_sectors", raw.value("segment_sectors", json(0)),
           "an integer in [1, 16777216] when segments > 0 (the size of one segment in sectors)");
  c.write_segments = raw.contains("write_segments") ? b.integer("write_segments", c.segments) : c.segments;
  c.separate_write_segment = b.flag("separate_write_segment");
  c.continuous_read = b.integer("continuous_read", 4);
  c.min_read_ahead = b.integer("min_read_ahead", kMaxSectors);
  c.max_read_ahead = b.integer("max_read_ahead", kMaxSectors);
  if (c.min_read_ahead > c.max_read_ahead && raw.contains("max_read_ahead"))
    b.fail("min_read_ahead", raw.at("min_read_ahead"),
           fmt::format("at most max_read_ahead ({})", c.max_read_ahead));
  c.read_ahead_over_requested = b.flag("read_ahead_over_requested");
  c.forget_sent = b.flag("forget_sent");
  if (raw.contains("read_ahead_wait")) c.read_ahead_wait = b.integer("read_ahead_wait", 2);
  c.read_ahead_on_idle_hit = b.flag("read_ahead_on_idle_hit");
  c.read_any_free_blocks = b.flag("read_any_free_blocks");
  c.fast_write = b.integer("fast_write", 2);
  c.combine_sequential_writes = b.flag("combine_sequential_writes");
  c.high_water = b.number("high_water", 0, 1);
  c.low_water = b.number("low_water", 0, 1);
  c.read_hits_on_write_data = b.flag("read_hits_on_write_data");
  c.write_buffer_bytes = b.integer("write_buffer_bytes", 0xffffffffu);
  if (c.write_buffer_bytes > 0 && c.fast_write > 0)
    b.fail("write_buffer_bytes", raw.at("write_buffer_bytes"),
           "0 with fast_write > 0 (a write buffer by size replaces the segments' write-behind: "
           "give fast_write 0)");
  c.write_buffer_window = b.integer("write_buffer_window", 1u << 20);
  if (raw.contains("write_buffer_high_water"))
    c.write_buffer_high_water = b.number("write_buffer_high_water", 0, 1);
  return c;
}

json controller_json(const ControllerParams& c) {
  json j;
  for (const auto& k : kCommandKeys) j[k.name] = c.command[k.write][k.miss][k.after_write];
  j["read_completion_ms"] = c.read_completion;
  j["write_completion_ms"] = c.write_completion;
  j["data_preparation_ms"] = c.data_preparation;
  j["reselect_ms"] = c.reselect;
  for (const auto& k : kExtraKeys)
    if (c.*k.field != 0.0) j[k.name] = c.*k.field;
  if (c.extra_write_disconnect) j["extra_write_disconnect"] = true;
  return j;
}

json cache_segments_json(const CacheParams& c);

json cache_json(const CacheParams& c) {
  json j = cache_segments_json(c);
  if (c.write_buffer()) {  // written only when set: older profiles stay as they were
    j["write_buffer_bytes"] = c.write_buffer_bytes;
    j["write_buffer_high_water"] = c.write_buffer_high_water;
    if (c.write_buffer_window > 0) j["write_buffer_window"] = c.write_buffer_window;
  }
  return j;
}

json cache_segments_json(const CacheParams& c) {
  json j = {{"segments", c.segments},
          {"segment_sectors", c.segment_sectors},
          {"write_segments", c.write_segments},
          {"separate_write_segment", c.separate_write_segment},
          {"continuous_read", c.continuous_read},
          {"min_read_ahead", c.min_read_ahead},
          {"max_read_ahead", c.max_read_ahead},
          {"read_ahead_over_requested", c.read_ahead_over_requested},
          {"read_ahead_on_idle_hit", c.read_ahead_on_idle_hit},
          {"read_any_free_blocks", c.read_any_free_blocks},
          {"fast_write", c.fast_write},
          {"combine_sequential_writes", c.combine_sequential_writes},
          {"high_water", c.high_water},
          {"low_water", c.low_water},
            {"read_hits_on_write_data", c.read_hits_on_write_data}};
  if (c.forget_sent) j["forget_sent"] = true;  // written only when set: older profiles stay as they were
  if (c.read_ahead_wait != 2) j["read_ahead_wait"] = c.read_ahead_wait;  // likewise
  return j;
}

}  // namespace

DriveParams drive_params_from_json(const json& j, const std::string& origin) {
  DriveParams p;
  if (!j.is_object()) return p;
  if (j.contains("controller")) {
    p.controller = read_controller(Block(j.at("controller"), origin, "controller"));
    p.has_controller = true;
  }
  if (j.contains("bus")) {
    const Block b(j.at("bus"), origin, "bus");
    b.only({"read_sector_ms", "write_sector_ms"});
    p.bus.read_sector = b.number("read_sector_ms", 0, kMaxMs);
    p.bus.write_sector = b.number("write_sector_ms", 0, kMaxMs);
    p.has_bus = true;
  }
  if (j.contains("cache")) {
    p.cache = read_cache(Block(j.at("cache"), origin, "cache"), j.at("cache"));
    p.has_cache = true;
  }
  return p;
}

void drive_params_to_json(const DriveParams& p, json& j) {
  if (p.has_controller) j["controller"] = controller_json(p.controller);
  if (p.has_bus)
    j["bus"] = {{"read_sector_ms", p.bus.read_sector}, {"write_sector_ms", p.bus.write_sector}};
  if (p.has_cache) j["cache"] = cache_json(p.cache);
}

}  // namespace disksched
