#include "daemon/filter/filter_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <sys/stat.h>

#include <fmt/format.h>

#include "predictor/lbn_model.hpp"
#include "predictor/device_model.hpp"
#include "common/text.hpp"
#include "common/units.hpp"
#include "schedulers/registry.hpp"

namespace disksched {

namespace {

std::invalid_argument bad(std::string_view key, std::string_view value, std::string_view why) {
  return std::invalid_argument(bad_value_message(key, value, why));
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

// The keys' setters, one a key (the table below says which).
void set_sched(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  if (value.empty()) throw bad(key, value, "needs a scheduler spec, e.g. sched=sstf");
  c.sched = value;
  c.sched_given = true;
}

void set_geometry(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  if (value.empty())
    throw bad(key, value, fmt::format("needs a model: {}, or PROFILE.json", builtin_models_text()));
  c.geometry = value;
}

void set_depth(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers& p) {
  std::uint64_t n = 0;
  if (!p.parse_uint64(value, n) || n < 1 || n > FilterConfig::kMaxDepth)
    throw bad(key, value, fmt::format("expected an integer from 1 to {}", FilterConfig::kMaxDepth));
  c.depth = static_cast<unsigned>(n);
  c.depth_given = true;
}

void set_log(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  if (value.empty()) throw bad(key, value, "needs a file path");
  c.log_path = value;
}

void set_timescale(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  double f = 0;
  try {
    f = parse_number(value);
  } catch (const UnitError&) {
  }
  if (!(f > 0)) throw bad(key, value, "expected a number > 0 (real time per model time, e.g. 0.1)");
  c.timescale = f;
}

void set_classes(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  try {
    c.classes = ClassMap::parse(value);
  } catch (const std::invalid_argument& e) {
    throw bad(key, value, e.what());
  }
  c.classes_text = value;
  c.apply_background();
}

void set_control(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  if (value.empty()) throw bad(key, value, "needs a socket path");
  c.control_path = value;
}

void set_save_dir(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  struct stat st{};
  const std::string dir(value);
  if (value.empty() || stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw bad(key, value, "expected an existing directory (where `disksched ctl save` may "
                          "write geometry profiles)");
  c.save_dir = value;
}

void set_delta(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  if (value == "auto") {
    c.delta_ms.reset();
  } else {
    c.delta_ms = duration_value(key, value, "expected auto or a duration >= 0 (e.g. 150us, 0.2ms)");
  }
}

void set_refine(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers& p) {
  if (!p.parse_bool(value, c.refine)) throw bad(key, value, fmt::format("expected {}", kBooleanHelp));
}

void set_metrics(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  if (value.empty()) throw bad(key, value, "needs a file path, e.g. /var/lib/prometheus/node-exporter/disksched-sdb.prom");
  c.metrics_path = value;
}

void set_metrics_interval(FilterConfig& c, std::string_view key, std::string_view value,
                          const KeyParsers&) {
  constexpr std::string_view expected = "expected a duration of at least 100ms and at most 86400s, a day (e.g. 10s)";
  const Millis ms = duration_value(key, value, expected);
  if (!(ms >= 100 && ms <= FilterConfig::kMaxMetricsIntervalMs)) throw bad(key, value, expected);
  c.metrics_interval_ms = ms;
}

void set_disk(FilterConfig& c, std::string_view key, std::string_view value, const KeyParsers&) {
  if (value.empty() || value.find_first_of("\"\\\n") != std::string_view::npos)
    throw bad(key, value, "needs a name without quotes, backslashes or newlines, e.g. sched-disk=sdb");
  c.disk = value;
}

void set_max_exports(FilterConfig& c, std::string_view key, std::string_view value,
                     const KeyParsers& p) {
  std::uint64_t n = 0;
  if (!p.parse_uint64(value, n) || n < 1 || n > FilterConfig::kMaxExportsLimit)
    throw bad(key, value, fmt::format("expected an integer from 1 to {} (export names served "
                                      "at once without sched-geometry=)",
                                      FilterConfig::kMaxExportsLimit));
  c.max_exports = static_cast<unsigned>(n);
}

void set_background(FilterConfig& c, std::string_view key, std::string_view value,
                    const KeyParsers&) {
  if (value.empty() || value.find_first_of(",=") != std::string_view::npos)
    throw bad(key, value, "expected export names separated by ':' (e.g. sched-background=scrub)");
  c.background = value;
  c.apply_background();
  if (!c.sched_given) c.sched = FilterConfig::kBackgroundSched;
  if (!c.depth_given) c.depth = FilterConfig::kBackgroundDepth;
}

// One row a key: name, value, help (.config_help and the man page's PARAMETERS), setter.
// clang-format off
constexpr KeyRow<FilterConfig> kKeys[] = {
    {{"sched", "SPEC", "Scheduling algorithm (default fcfs), e.g. sstf, look, asatf:w=30. `disksched sched list` lists all."}, set_sched},
    {{"sched-geometry", "MODEL", "Device geometry for head tracking: a built-in model (below) or PROFILE.json. Without it only LBN distances are known (rotation-aware schedulers refuse to start)."}, set_geometry},
    {{"sched-depth", "N", "Requests at the device at once (default 1)."}, set_depth},
    {{"sched-log", "PATH", "Latency log: one CSV line per request (a regular file; a latency log is appended to)."}, set_log},
    {{"sched-timescale", "F", "Real time per model time (default 1); must match the emulator's timescale."}, set_timescale},
    {{"sched-classes", "RULES", "Request classes, SOURCE=CLASS,... (see the man page): SOURCE export:NAME, ioprio:rt|be|idle, fua, op:read|write|trim|zero or default; CLASS critical, noncritical or limited:TIME."}, set_classes},
    {{"sched-control", "PATH", "Control socket for `disksched ctl PATH show|switch SPEC|stats|period|tracks refine|fixed|save PROFILE.json|reopen`."}, set_control},
    {{"sched-save-dir", "DIR", "The only directory `ctl save` writes into (default: none, save is refused)."}, set_save_dir},
    {{"sched-delta", "auto|TIME", "Overhead from dispatch to device start (default auto: calibrated from completions), e.g. 150us."}, set_delta},
    {{"sched-refine", "BOOL", "Refine the geometry's rotation period and each track's phase from completions (default on)."}, set_refine},
    {{"sched-metrics", "PATH", "Prometheus text file (node_exporter textfile collector), rewritten atomically; the control socket's `metrics` command gives the same text."}, set_metrics},
    {{"sched-metrics-interval", "TIME", "How often sched-metrics= is rewritten (default 10s)."}, set_metrics_interval},
    {{"sched-disk", "NAME", "The metrics' disk label (default: the metrics file's name without .prom)."}, set_disk},
    {{"sched-max-exports", "N", "Without sched-geometry=: export names served at once, each with a device and a thread of its own (default 64); a connection to one more is refused."}, set_max_exports},
    {{"sched-background", "NAMES", "Exports (NAME:NAME...) whose requests are background work (time-noncritical). Unless given, sched= becomes qos (latency targets; docs/qos.md) and sched-depth= 32."}, set_background},
};
// clang-format on

}  // namespace

std::span<const KeyRow<FilterConfig>> filter_keys() { return kKeys; }

const char* filter_config_help() {
  static const std::string text =
      key_help(key_docs(filter_keys())) + fmt::format("\nBuilt-in models: {}.", builtin_models_text());
  return text.c_str();
}

bool FilterConfig::set(std::string_view key, std::string_view value, const KeyParsers& p) {
  if (key != "sched" && key.substr(0, 6) != "sched-") return false;
  const KeyRow<FilterConfig>* row = find_key(filter_keys(), key);
  if (row == nullptr)
    throw std::invalid_argument(fmt::format("unknown key '{}'; the disksched filter's keys are {}",
                                            key, key_names(key_docs(filter_keys()))));
  row->set(*this, key, value, p);
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

FilterConfig::Checked FilterConfig::check() const {
  if (!log_path.empty())
    for (const std::string& f : plugin_files)
      if (same_file(log_path, f))
        throw bad("sched-log", log_path,
                  fmt::format("is the plugin's file={}: the latency log would write its lines "
                              "over the data the plugin serves; give the log a path of its own",
                              f));
  Checked out;
  if (!geometry.empty()) {
    try {
      out.geometry = load_model(geometry);
    } catch (const std::exception& e) {
      throw bad("sched-geometry", geometry, e.what());
    }
  }
  // The LBN model's size is only known once the plugin is open; any size will do to
  // check that the scheduler accepts it.
  const LbnModel probe(1ull << 40);
  const DeviceModel& m = out.geometry ? static_cast<const DeviceModel&>(*out.geometry) : probe;
  try {
    out.scheduler = Registry::builtin().check(sched, m);
  } catch (const std::exception& e) {
    std::string hint;
    const AlgorithmInfo* a = Registry::builtin().find(split_spec_name(sched).first);
    if (!out.geometry && a != nullptr && (a->needs_rotation || a->needs_mems))
      hint = "; without sched-geometry= only LBN distances are known: give "
             "sched-geometry=NAME (a built-in model: " + builtin_models_text() +
             ") or PROFILE.json for this scheduler";
    throw bad("sched", sched, std::string(e.what()) + hint);
  }
  return out;
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
