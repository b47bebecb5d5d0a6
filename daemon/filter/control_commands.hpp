// What the control socket's commands do (see control.hpp for the protocol).
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "daemon/filter/dispatcher.hpp"
#include "daemon/filter/latency_log.hpp"

namespace disksched {

// What the commands act on.
struct ControlTarget {
  Dispatcher* dispatcher = nullptr;            // null before the first client opened the device
  std::string* configured_scheduler = nullptr;  // what `show` reports then; a `switch` lands here
  std::string classes;                          // sched-classes, as described
  std::string save_dir;                         // sched-save-dir=; empty: `save` is refused
  LatencyLogWriter* log = nullptr;              // sched-log=, or null
  // Renders the Prometheus text for `metrics` ({"ok":true,"metrics":TEXT}); empty: none kept.
  std::function<std::string()> metrics{};
};

// Answers one command line with one line of JSON. `lock`, when given, is held on entry
// and guards the target (the filter's device lock, which new connections need too);
// `save` and `reopen` release it before they touch the file system, so a slow or stalled file
// system never holds up new connections or other commands.
std::string handle_control_command(const std::string& line, ControlTarget& target,
                                   std::unique_lock<std::mutex>* lock = nullptr);

}  // namespace disksched
