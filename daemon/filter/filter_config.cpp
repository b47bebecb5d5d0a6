#include "daemon/filter/filter_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <sys/stat.h>

#include <fmt/format.h>

#include "daemon/filter/lbn_model.hpp"
#include "predictor/device_model.hpp"
#include "common/text.hpp"
#include "common/units.hpp"
#include "schedulers/registry.hpp"

namespace disksched {

const char* filter_config_help() {
  static const std::string text = fmt::format(
    "sched=SPEC                  Scheduling algorithm (default fcfs), e.g. sstf,\n"
    "                            look, asatf:w=30. `disksched sched list` lists all.\n"
    "sched-geometry=MODEL        Device geometry for head tracking: a built-in\n"
    "                            model (below) or PROFILE.json. Without it only\n"
    "                            LBN distances are known (rotation-aware schedulers\n"
    "                            refuse to start).\n"
    "sched-depth=N               Requests at the device at once (default 1).\n"
    "sched-log=PATH              Latency log: one CSV line per request (a\n"
    "                            regular file; a latency log is appended to).\n"
    "sched-timescale=F           Real time per model time (default 1); must match\n"
    "                            the emulator's timescale.\n"
    "sched-classes=RULES         Request classes, SOURCE=CLASS,... (see the man\n"
    "                            page): SOURCE export:NAME|ioprio:rt|be|idle|fua|\n"
    "                            op:read|write|trim|zero|default, CLASS critical|\n"
    "                            noncritical|limited:TIME.\n"
    "sched-control=PATH          Control socket for `disksched ctl PATH\n"
    "                            show|switch SPEC|stats|period|tracks refine|fixed|\n"
    "                            save PROFILE.json|reopen`.\n"
    "sched-save-dir=DIR          The only directory `ctl save` writes into\n"
    "                            (default: none, save is refused).\n"
    "sched-delta=auto|TIME       Overhead from dispatch to device start (default\n"
    "                            auto: calibrated from completions), e.g. 150us.\n"
    "sched-refine=BOOL           Refine the geometry's rotation period and each\n"
    "                            track's phase from completions (default on).\n"
    "sched-metrics=PATH          Prometheus text file (node_exporter textfile\n"
    "                            collector), rewritten atomically; the control\n"
    "                            socket's `metrics` command gives the same text.\n"
    "sched-metrics-interval=TIME How often sched-metrics= is rewritten (default 10s).\n"
    "sched-disk=NAME             The metrics' disk label (default: the metrics\n"
    "                            file's name without .prom).\n"
    "sched-max-exports=N         Without sched-geometry=: export names served at\n"
    "                            once, each with a device and a thread of its own\n"
    "                            (default 64); a connection to one more is refused.\n"
    "sched-background=NAMES      Exports (NAME:NAME...) whose requests are background\n"
    "                            work (time-noncritical). Unless given, sched= becomes\n"
    "                            qos (latency targets; docs/qos.md) and\n"
    "                            sched-depth= 32.\n"
    "Built-in models: {}.",
      builtin_models_text());
  return text.c_str();
}

namespace {

std::invalid_argument bad(std::string_view key, std::string_view value, std::string_view why) {
  return std::invalid_argument(fmt::format("{}={}: {}", key, value, why));
}

// A duration key's value; a malformed one is refused with `expected` and why.
Millis duration_value(std::string_view key, std::string_view value, std::string_view expected) {
  try {
    return parse_duration_ms(value);
  } catch (const UnitError& e) {
    throw bad(key, value, fmt::format("{}: {}", expected, e.what()));
  }
}

// Whether two paths name one file: the same inode when both exist, else the same
// path once the parts that exist are resolved (symbolic links, "..").
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa{}, sb{};
  if (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
  return !ea && !eb && ca == cb;
}

}  // namespace

bool FilterConfig::set(std::string_view key, std::string_view value, const KeyParsers& p) {
  if (key == "sched") {
    if (value.empty()) throw bad(key, value, "needs a scheduler spec, e.g. sched=sstf");
    sched = value;
    sched_given = true;
    return true;
  }
  if (key.substr(0, 6) != "sched-") return false;
  if (key == "sched-geometry") {
    if (value.empty())
      throw bad(key, value, fmt::format("needs a model: {}, or PROFILE.json", builtin_models_text()));
    geometry = value;
  } else if (key == "sched-depth") {
    std::uint64_t n = 0;
    if (!p.parse_uint64(value, n) || n < 1 || n > kMaxDepth)
      throw bad(key, value, fmt::format("expected an integer from 1 to {}", kMaxDepth));
    depth = static_cast<unsigned>(n);
    depth_given = true;
  } else if (key == "sched-log") {
    if (value.empty()) throw bad(key, value, "needs a file path");
    log_path = value;
  } else if (key == "sched-timescale") {
    double f = 0;
    try {
      f = parse_number(value);
    } catch (const UnitError&) {
    }
    if (!(f > 0)) throw bad(key, value, "expected a number > 0 (real time per model time, e.g. 0.1)");
    timescale = f;
  } else if (key == "sched-classes") {
    try {
      classes = ClassMap::parse(value);
    } catch (const std::invalid_argument& e) {
      throw bad(key, value, e.what());
    }
    classes_text = value;
    apply_background();
  } else if (key == "sched-background") {
    if (value.empty() || value.find_first_of(",=") != std::string_view::npos)
      throw bad(key, value, "expected export names separated by ':' (e.g. sched-background=scrub)");
    background = value;
    apply_background();
    if (!sched_given) sched = kBackgroundSched;
    if (!depth_given) depth = kBackgroundDepth;
  } else if (key == "sched-control") {
    if (value.empty()) throw bad(key, value, "needs a socket path");
    control_path = value;
  } else if (key == "sched-save-dir") {
    struct stat st{};
    const std::string dir(value);
    if (value.empty() || stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw bad(key, value, "expected an existing directory (where `disksched ctl save` may "
                            "write geometry profiles)");
    save_dir = value;
  } else if (key == "sched-delta") {
    if (value == "auto") {
      delta_ms.reset();
    } else {
      delta_ms = duration_value(key, value, "expected auto or a duration >= 0 (e.g. 150us, 0.2ms)");
    }
  } else if (key == "sched-refine") {
    if (!p.parse_bool(value, refine)) throw bad(key, value, fmt::format("expected {}", kBooleanHelp));
  } else if (key == "sched-metrics") {
    if (value.empty()) throw bad(key, value, "needs a file path, e.g. /var/lib/prometheus/node-exporter/disksched-sdb.prom");
    metrics_path = value;
  } else if (key == "sched-metrics-interval") {
    constexpr std::string_view expected = "expected a duration of at least 100ms and at most 86400s, a day (e.g. 10s)";
    const Millis ms = duration_value(key, value, expected);
    if (!(ms >= 100 && ms <= kMaxMetricsIntervalMs)) throw bad(key, value, expected);
    metrics_interval_ms = ms;
  } else if (key == "sched-max-exports") {
    std::uint64_t n = 0;
    if (!p.parse_uint64(value, n) || n < 1 || n > kMaxExportsLimit)
      throw bad(key, value, fmt::format("expected an integer from 1 to {} (export names served "
                                        "at once without sched-geometry=)",
                                        kMaxExportsLimit));
    max_exports = static_cast<unsigned>(n);
  } else if (key == "sched-disk") {
    if (value.empty() || value.find_first_of("\"\\\n") != std::string_view::npos)
      throw bad(key, value, "needs a name without quotes, backslashes or newlines, e.g. sched-disk=sdb");
    disk = value;
  } else {
    throw std::invalid_argument(fmt::format(
        "unknown key '{}'; the disksched filter's keys are sched, sched-geometry, sched-depth, "
        "sched-log, sched-timescale, sched-classes, sched-control, sched-save-dir, sched-delta, "
        "sched-refine, sched-metrics, sched-metrics-interval, sched-disk, sched-max-exports, "
        "sched-background",
        key));
  }
  return true;
}

void FilterConfig::apply_background() {
  if (background.empty()) return;
  // export:NAME=noncritical for each, after (so over) what sched-classes= says.
  std::string rules = classes_text;
  for (std::string_view name : split(background, ':'))
    rules += fmt::format("{}export:{}=noncritical", rules.empty() ? "" : ",", trim(name));
  try {
    classes = ClassMap::parse(rules);
  } catch (const std::invalid_argument& e) {
    throw bad("sched-background", background, e.what());
  }
}

std::string FilterConfig::disk_label() const {
  if (!disk.empty()) return disk;
  if (!metrics_path.empty()) {
    std::string name = metrics_path.substr(metrics_path.find_last_of('/') + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".prom") == 0) name.resize(name.size() - 5);
    if (!name.empty()) return name;
  }
  return "disksched";
}

std::unique_ptr<DeviceModel> FilterConfig::validate() const {
  if (!log_path.empty())
    for (const std::string& f : plugin_files)
      if (same_file(log_path, f))
        throw bad("sched-log", log_path,
                  fmt::format("is the plugin's file={}: the latency log would write its lines "
                              "over the data the plugin serves; give the log a path of its own",
                              f));
  std::unique_ptr<DeviceModel> geom;
  if (!geometry.empty()) {
    try {
      geom = load_model(geometry);
    } catch (const std::exception& e) {
      throw bad("sched-geometry", geometry, e.what());
    }
  }
  // The LBN model's size is only known once the plugin is open; any size will do to
  // check that the scheduler accepts it.
  const LbnModel probe(1ull << 40);
  const DeviceModel& m = geom ? static_cast<const DeviceModel&>(*geom) : probe;
  try {
    make_scheduler(sched, m);
  } catch (const std::exception& e) {
    std::string hint;
    const AlgorithmInfo* a = nullptr;
    try {
      a = Registry::builtin().parse(sched).first;
    } catch (const std::exception&) {
    }
    if (!geom && a != nullptr && (a->needs_rotation || a->needs_mems))
      hint = "; without sched-geometry= only LBN distances are known: give "
             "sched-geometry=NAME (a built-in model: " + builtin_models_text() +
             ") or PROFILE.json for this scheduler";
    throw bad("sched", sched, std::string(e.what()) + hint);
  }
  return geom;
}

std::unique_ptr<DeviceModel> FilterConfig::model_for_export(std::uint64_t export_bytes) const {
  // Requests are costed in whole sectors: the model must hold the last partial one.
  const std::uint64_t sb = 512;
  const std::uint64_t rounded = std::max<std::uint64_t>((export_bytes + sb - 1) / sb * sb, sb);
  if (geometry.empty()) return std::make_unique<LbnModel>(rounded);
  auto m = load_model(geometry);
  const std::uint64_t msb = m->sector_bytes();
  if (m->capacity_bytes() < (export_bytes + msb - 1) / msb * msb)
    throw bad("sched-geometry", geometry,
              fmt::format("the model holds {} bytes but the export is {} bytes; the geometry "
                          "must cover the whole export",
                          m->capacity_bytes(), export_bytes));
  return m;
}

Dispatcher::Options FilterConfig::dispatcher_options(std::uint64_t capacity_bytes) const {
  Dispatcher::Options o;
  o.core.depth = depth;
  if (delta_ms) o.core.fixed_delta = *delta_ms / timescale;
  o.core.refine_period = refine;
  o.core.refine_track_phase = refine;
  o.timescale = timescale;
  o.scratch_model = [geometry = geometry, capacity_bytes]() -> std::unique_ptr<DeviceModel> {
    FilterConfig c;
    c.geometry = geometry;
    return c.model_for_export(geometry.empty() ? capacity_bytes : 0);
  };
  return o;
}

}  // namespace disksched
