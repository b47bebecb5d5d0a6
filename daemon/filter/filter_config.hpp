// The filter's configuration keys. Every key but `sched` starts with `sched-`, so none
// collides with a plugin's. Kept free of nbdkit so it is unit-tested.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/key_parsers.hpp"
#include "common/key_table.hpp"
#include "daemon/filter/class_map.hpp"
#include "daemon/filter/dispatcher.hpp"
#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"

namespace disksched {

struct FilterConfig {
  std::string sched = "fcfs";       // sched=SPEC
  std::string geometry;             // sched-geometry=; empty: LBN distances only
  unsigned depth = 1;               // sched-depth=N
  std::string log_path;             // sched-log=PATH
  double timescale = 1.0;           // sched-timescale=F
  std::string classes_text;         // sched-classes=RULES
  ClassMap classes;
  std::string control_path;         // sched-control=PATH
  std::string save_dir;             // sched-save-dir=DIR: where `ctl save` may write
  std::optional<Millis> delta_ms;   // sched-delta=TIME (real ms); nullopt: auto
  bool refine = true;               // sched-refine=BOOL: period and track phases refined
  std::string metrics_path;         // sched-metrics=PATH (Prometheus text file)
  Millis metrics_interval_ms = 10000;  // sched-metrics-interval=TIME
  std::string disk;                 // sched-disk=NAME; empty: see disk_label()
  unsigned max_exports = 64;        // sched-max-exports=N: export names in use at once
  // The plugin's file= values (seen passing by): the latency log must not be one of them.
  std::vector<std::string> plugin_files;
  std::string background;           // sched-background=NAME[:NAME...]: background exports
  bool sched_given = false, depth_given = false;  // sched=, sched-depth= were set

  // What sched-background= defaults to when sched= (sched-depth=) is not given: latency
  // targets over the drive's queue (schedulers/classes/qos.cpp), 32 deep (a SATA NCQ).
  static constexpr const char* kBackgroundSched = "qos";
  static constexpr unsigned kBackgroundDepth = 32;

  // The metrics' `disk` label: sched-disk=, else the metrics file's name without
  // .prom, else "disksched".
  std::string disk_label() const;

  static constexpr unsigned kMaxDepth = 1024;
  static constexpr unsigned kMaxExportsLimit = 4096;
  // sched-metrics-interval= at most (a day): a longer wait overflows the clock's range.
  static constexpr Millis kMaxMetricsIntervalMs = 86'400'000;

  // Takes one key=value, booleans and counts read by `p` (nbdkit's parsers in the
  // filter). Returns false when the key is not the filter's (it goes to the plugin).
  // Throws std::invalid_argument naming the key, the value and what was expected. Path
  // values are taken as given (the caller makes them absolute).
  bool set(std::string_view key, std::string_view value, const KeyParsers& p);
  // Rebuilds `classes` from sched-classes= with the background exports on top.
  void apply_background();

  // Builds what the keys describe and checks they fit together: the geometry loads, the
  // scheduler spec is one for it (parsed once, Registry::check), the latency log is not
  // the plugin's file=. Returns the geometry (nullptr when none was given) and the
  // parsed spec. Throws std::invalid_argument naming the key.
  struct Checked {
    std::unique_ptr<DeviceModel> geometry;
    SchedulerSpec scheduler;
  };
  Checked check() const;
  // check()'s geometry.
  std::unique_ptr<DeviceModel> validate() const { return check().geometry; }

  // The geometry model for an export of `export_bytes` (the LBN-only model when no
  // geometry was given). Throws std::invalid_argument when the geometry is smaller
  // than the export.
  std::unique_ptr<DeviceModel> model_for_export(std::uint64_t export_bytes) const;

  // What the keys ask of a device's dispatcher: depth, timescale, delta, refinement, and
  // a scratch model for calibration like the device's (`capacity_bytes`: its size).
  // Only `warn` is left to the caller.
  Dispatcher::Options dispatcher_options(std::uint64_t capacity_bytes) const;
};

// The filter's keys, one row a key (name, value, help, setter).
std::span<const KeyRow<FilterConfig>> filter_keys();

// The text of .config_help, made from filter_keys() (built once: it lists the built-in models).
const char* filter_config_help();

}  // namespace disksched
