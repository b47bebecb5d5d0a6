#include "predictor/import/disksim_drive.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

namespace disksched::disksim {
namespace {

double number_of(const Param& p, double lo, double hi) {
  const Value& v = p.value;
  if (v.kind != Value::Kind::Number || !std::isfinite(v.number) || v.number < lo || v.number > hi)
    throw ParamError(fmt::format("{}: expected a number in [{}, {}] for '{}', not {}",
                                 v.where.str(), lo, hi, p.key, v.describe()));
  return v.number;
}

unsigned count_of(const Param& p, double hi) {
  const double d = number_of(p, 0, hi);
  if (d != std::floor(d))
    throw ParamError(fmt::format("{}: expected a whole number for '{}', not {}",
                                 p.value.where.str(), p.key, p.value.describe()));
  return static_cast<unsigned>(d);
}

bool flag_of(const Param& p) { return number_of(p, 0, 1e9) != 0; }

// The disk block's keys the drive model uses, by normalized name: what each sets.
using Setter = std::function<void(DriveParams&, const Param&, double scale)>;

Setter command(bool write, bool miss, bool after_write) {
  return [=](DriveParams& d, const Param& p, double scale) {
    d.controller.command[write][miss][after_write] = number_of(p, 0, 1e6) * scale;
    d.has_controller = true;
  };
}
Setter overhead(Millis ControllerParams::*field) {
  return [=](DriveParams& d, const Param& p, double scale) {
    d.controller.*field = number_of(p, 0, 1e6) * scale;
    d.has_controller = true;
  };
}
template <typename T>
Setter cache(T CacheParams::*field, double hi) {
  return [=](DriveParams& d, const Param& p, double) {
    if constexpr (std::is_same_v<T, bool>)
      d.cache.*field = flag_of(p);
    else if constexpr (std::is_same_v<T, double>)
      d.cache.*field = number_of(p, 0, hi);
    else
      d.cache.*field = count_of(p, hi);
    d.has_cache = true;
  };
}

const std::map<std::string, Setter>& disk_keys() {
  static const std::map<std::string, Setter> keys = {
      {"read hit over. after read", command(false, false, false)},
      {"read hit over. after write", command(false, false, true)},
      {"read miss over. after read", command(false, true, false)},
      {"read miss over. after write", command(false, true, true)},
      {"write hit over. after read", command(true, false, false)},
      {"write hit over. after write", command(true, false, true)},
      {"write miss over. after read", command(true, true, false)},
      {"write miss over. after write", command(true, true, true)},
      {"read completion overhead", overhead(&ControllerParams::read_completion)},
      {"write completion overhead", overhead(&ControllerParams::write_completion)},
      {"data preparation overhead", overhead(&ControllerParams::data_preparation)},
      {"first reselect overhead", [](DriveParams& d, const Param& p, double scale) {
         d.controller.reselect = d.controller.write_reselect = number_of(p, 0, 1e6) * scale;
         d.has_controller = true;
       }},
      {"other reselect overhead", overhead(&ControllerParams::extra_reselect)},
      {"write disconnect overhead", overhead(&ControllerParams::write_disconnect)},
      {"minimum seek delay", overhead(&ControllerParams::min_write_seek)},
      {"extra write disconnect", [](DriveParams& d, const Param& p, double) {
         d.controller.extra_write_disconnect = flag_of(p);
         d.has_controller = true;
       }},
      {"extradisc command overhead", overhead(&ControllerParams::extra_command)},
      {"extradisc disconnect overhead", overhead(&ControllerParams::extra_disconnect)},
      {"extradisc inter-disconnect delay", overhead(&ControllerParams::extra_inter_disconnect)},
      {"extradisc 2nd disconnect overhead", overhead(&ControllerParams::extra_disconnect2)},
      {"extradisc seek delta", overhead(&ControllerParams::extra_seek_delta)},
      {"number of buffer segments", cache(&CacheParams::segments, 1024)},
      {"segment size (in blks)", cache(&CacheParams::segment_sectors, 1 << 24)},
      {"maximum number of write segments", cache(&CacheParams::write_segments, 1024)},
      {"use separate write segment", cache(&CacheParams::separate_write_segment, 1)},
      {"buffer continuous read", cache(&CacheParams::continuous_read, 4)},
      {"minimum read-ahead (blks)", cache(&CacheParams::min_read_ahead, 1 << 24)},
      {"maximum read-ahead (blks)", cache(&CacheParams::max_read_ahead, 1 << 24)},
      {"read-ahead over requested", [](DriveParams& d, const Param& p, double) {
         // -1 (DiskSim 4.0 allows -1..1): read-ahead as over requested, and the sectors sent
         // the host leave the segment when the read completes (disk_request_complete).
         const double v = number_of(p, -1, 1);
         if (v != std::floor(v))
           throw ParamError(fmt::format("{}: expected -1, 0 or 1 for '{}', not {}",
                                        p.value.where.str(), p.key, p.value.describe()));
         d.cache.read_ahead_over_requested = v != 0;
         d.cache.forget_sent = v < 0;
         d.has_cache = true;
       }},
      {"allow almost read hits", [](DriveParams& d, const Param& p, double) {
         // 0: a read the read-ahead has not reached is a miss (DiskSim's
         // disk_buffer_select_segment); 1: also a hit when its first sector is the next.
         const double v = number_of(p, 0, 1);
         if (v != std::floor(v))
           throw ParamError(fmt::format("{}: expected 0 or 1 for '{}', not {}",
                                        p.value.where.str(), p.key, p.value.describe()));
         d.cache.read_ahead_wait = static_cast<unsigned>(v);
         d.has_cache = true;
       }},
      {"read-ahead on idle hit", cache(&CacheParams::read_ahead_on_idle_hit, 1)},
      {"read any free blocks", cache(&CacheParams::read_any_free_blocks, 1)},
      {"fast write level", cache(&CacheParams::fast_write, 2)},
      {"combine seq writes", cache(&CacheParams::combine_sequential_writes, 1)},
      {"high (read) water mark", cache(&CacheParams::high_water, 1)},
      {"low (write) water mark", cache(&CacheParams::low_water, 1)},
      {"allow read hits on write data", cache(&CacheParams::read_hits_on_write_data, 1)},
  };
  return keys;
}

// Keys read here but set nothing by themselves, and the layout importer's.
const std::set<std::string>& handled_keys() {
  static const std::set<std::string> keys = {"model", "time scale for overheads",
                                             "per-request overhead time",
                                             "bulk sector transfer time",
                                             "enable caching in buffer"};
  return keys;
}

std::string ignored_key(const Param& p) { return fmt::format("{} ({})", p.key, p.where.str()); }

// The topology's nodes from the root down to the one named `instance`, or empty.
bool path_to(const Topology& t, const std::set<std::string>& instances,
             std::vector<const Topology*>& path) {
  path.push_back(&t);
  if (instances.count(normalize_key(t.name)) != 0) return true;
  for (const Topology& c : t.children)
    if (path_to(c, instances, path)) return true;
  path.pop_back();
  return false;
}

}  // namespace

DriveImport import_drive(const ParamFile& file, const Block& disk) {
  DriveImport out;
  DriveParams& d = out.drive;
  double scale = 1.0;
  if (const Param* p = disk.find("Time scale for overheads")) scale = number_of(*p, 0, 1e6);
  Millis per_request = 0.0;
  if (const Param* p = disk.find("Per-request overhead time")) per_request = number_of(*p, 0, 1e6);
  for (const Param& p : disk.params) {
    const std::string key = normalize_key(p.key);
    auto it = disk_keys().find(key);
    if (it != disk_keys().end()) {
      it->second(d, p, scale);
      out.used.push_back(&p);
    } else if (key != "model" && handled_keys().count(key) != 0) {
      out.used.push_back(&p);
    } else if (handled_keys().count(key) == 0)
      out.ignored.push_back(ignored_key(p));
  }
  if (per_request > 0) {
    // Every command pays it, hit or miss, read or write.
    for (auto& w : d.controller.command)
      for (auto& m : w)
        for (Millis& a : m) a += per_request * scale;
    d.has_controller = true;
  }
  if (const Param* p = disk.find("Enable caching in buffer"); p != nullptr && !flag_of(*p)) {
    d.cache.segments = 0;  // the buffer only matches speeds: nothing hits
    d.cache.write_segments = 0;  // nor holds writes (a profile allows no more than segments)
    d.cache.separate_write_segment = false;
    d.has_cache = true;
  }
  // DiskSim counts the dedicated write segment among its "Number of buffer segments"
  // (and refuses one with no other segment beside it); the profile counts read segments.
  if (d.cache.separate_write_segment && d.cache.segments > 0) {
    const Param* n = disk.find("Number of buffer segments");
    if (d.cache.segments < 2)
      throw ParamError(fmt::format(
          "{}: 'Use separate write segment' takes one of the 'Number of buffer segments', "
          "so there must be 2 or more, not {}",
          n != nullptr ? n->value.where.str() : std::string("(no 'Number of buffer segments')"),
          d.cache.segments));
    d.cache.segments -= 1;
  }
  if (d.has_cache && disk.find("Maximum number of write segments") == nullptr)
    d.cache.write_segments = d.cache.segments;

  // A sector crosses every bus and controller between the host and the disk, at the
  // slowest one's rate; the disk's own bulk rate bounds it too.
  Millis read = 0.0, write = 0.0;
  if (const Param* p = disk.find("Bulk sector transfer time")) read = write = number_of(*p, 0, 1e6);
  std::set<std::string> instances;
  std::map<std::string, std::string> type_of;  // instance -> block name
  for (const Instantiation& i : file.instances)
    for (const std::string& n : i.names) {
      type_of[normalize_key(n)] = i.as;
      if (normalize_key(i.as) == normalize_key(disk.name)) instances.insert(normalize_key(n));
    }
  bool bus = false;
  for (const Topology& t : file.topologies) {
    std::vector<const Topology*> path;
    if (!path_to(t, instances, path)) continue;
    for (const Topology* node : path) {
      if (node->type != "disksim_bus" && node->type != "disksim_ctlr") continue;
      auto it = type_of.find(normalize_key(node->name));
      const Block* b = it == type_of.end() ? nullptr : file.find_block(it->second);
      if (b == nullptr) continue;
      bus = true;
      for (const Param& p : b->params) {
        const std::string key = normalize_key(p.key);
        if (key == "read block transfer time") {
          read = std::max(read, number_of(p, 0, 1e6));
          out.used.push_back(&p);
        } else if (key == "write block transfer time") {
          write = std::max(write, number_of(p, 0, 1e6));
          out.used.push_back(&p);
        } else if (key == "bulk sector transfer time") {
          const Millis bulk = number_of(p, 0, 1e6);
          read = std::max(read, bulk);
          write = std::max(write, bulk);
          out.used.push_back(&p);
        }
        else if (key != "type" && key != "print stats" && !(p.value.kind == Value::Kind::Number &&
                                                             p.value.number == 0))
          out.ignored.push_back(fmt::format("{} {}: {}", b->type, b->name, ignored_key(p)));
      }
    }
    break;
  }
  if (bus || read > 0 || write > 0) {
    d.bus.read_sector = read;
    d.bus.write_sector = write;
    d.has_bus = true;
  }
  return out;
}

}  // namespace disksched::disksim
