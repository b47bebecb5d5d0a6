// What the control socket's commands do (see control.hpp for the protocol): a table of
// commands (name, argument, handler), each giving the reply that the caller sends.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/filter/dispatcher.hpp"
#include "daemon/filter/latency_log.hpp"
#include "schedulers/registry.hpp"

namespace disksched {

// What the commands act on.
struct ControlTarget {
  Dispatcher* dispatcher = nullptr;            // null before the first client opened the device
  SchedulerSpec* configured_scheduler = nullptr;  // what `show` reports then; a `switch` lands here
  std::string classes;                          // sched-classes, as described
  std::string save_dir;                         // sched-save-dir=; empty: `save` is refused
  LatencyLogWriter* log = nullptr;              // sched-log=, or null
  // Renders the Prometheus text for `metrics` ({"ok":true,"metrics":TEXT}); empty: none kept.
  std::function<std::string()> metrics{};
};

// A command's answer. Most are complete under the lock; `save` and `reopen` leave their
// file-system work in `unlocked`, which the lock's owner runs after letting the lock go,
// so a slow or stalled file system never holds up new connections or other commands.
struct ControlReply {
  nlohmann::json reply;
  std::function<nlohmann::json()> unlocked{};  // empty: `reply` is the answer

  // The answer as one line of JSON (runs `unlocked` first, if any; call without the lock).
  std::string finish();
};

// Runs one command line against `target`. The caller holds the lock that guards the
// target (the filter's device lock, which new connections need too) and keeps it.
ControlReply run_control_command(const std::string& line, ControlTarget& target);

// run_control_command then finish() in one call. `lock`, when given, is held on entry and
// released before a command's file-system work (it stays released then).
std::string handle_control_command(const std::string& line, ControlTarget& target,
                                   std::unique_lock<std::mutex>* lock = nullptr);

}  // namespace disksched
