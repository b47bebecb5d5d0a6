#include "daemon/filter/control_commands.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "daemon/filter/control_save.hpp"
#include "daemon/filter/lbn_model.hpp"
#include "predictor/profile.hpp"
#include "schedulers/registry.hpp"

namespace disksched {
namespace {

nlohmann::json or_null(bool known, double v) {
  return known && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json snapshot_json(const Dispatcher::Snapshot& s) {
  nlohmann::json j = {
      {"scheduler", s.scheduler}, {"geometry", s.model},       {"depth", s.depth},
      {"timescale", s.timescale}, {"queued", s.queued},        {"eligible", s.eligible},
      {"in_flight", s.in_flight}, {"delta_ms", s.delta_ms},    {"calibrating", s.calibrating}};
  // The rotation period predictions use (real ms) and how far it is from the profile's;
  // the estimate from completions beside it (the one used when rotation_refine).
  const bool rotating = s.profile_rotation_ms > 0;
  const bool fitted = rotating && s.fitted_rotation_ms > 0;
  auto ppm = [&](Millis p) { return (p / s.profile_rotation_ms - 1.0) * 1e6; };
  j["rotation_ms"] = or_null(rotating, s.rotation_ms);
  j["rotation_ppm"] = or_null(rotating, rotating ? ppm(s.rotation_ms) : 0.0);
  j["rotation_profile_ms"] = or_null(rotating, s.profile_rotation_ms);
  j["rotation_refine"] = rotating && s.refine_period;
  j["rotation_refined"] = s.period_refined;
  j["rotation_fit_ms"] = or_null(fitted, s.fitted_rotation_ms);
  j["rotation_fit_ppm"] = or_null(fitted, fitted ? ppm(s.fitted_rotation_ms) : 0.0);
  j["rotation_fit_se_ppm"] = or_null(fitted, s.fitted_uncertainty * 1e6);
  j["rotation_outliers"] = s.period_outliers;
  // Tracks whose phase completions corrected (their skew-derived or measured angle was off).
  j["track_refine"] = s.refine_track_phase;
  j["tracks_rephased"] = s.tracks_rephased;
  j["track_adjustments"] = s.track_phase_adjustments;
  j["warnings"] = s.warnings;
  return j;
}

nlohmann::json stats_json(const Dispatcher::Snapshot& s) {
  const auto& st = s.stats;
  nlohmann::json j = snapshot_json(s);
  j["arrived"] = st.arrived;
  j["dispatched"] = st.dispatched;
  j["requests"] = st.completed;
  j["errors"] = st.failed;
  j["switches"] = st.switches;
  j["mean_queue_len"] =
      st.dispatched ? nlohmann::json(st.sum_queue_len / st.dispatched) : nlohmann::json(nullptr);
  j["mean_ms"] =
      st.completed ? nlohmann::json(st.sum_response_ms / st.completed) : nlohmann::json(nullptr);
  j["max_ms"] = st.max_response_ms;
  j["mean_service_ms"] =
      st.completed ? nlohmann::json(st.sum_service_ms / st.completed) : nlohmann::json(nullptr);
  j["prediction_within_sector"] =
      st.predictions_checked
          ? nlohmann::json(static_cast<double>(st.predictions_within) / st.predictions_checked)
          : nlohmann::json(nullptr);
  for (const auto& [name, value] : s.scheduler_counters) j[name] = value;
  return j;
}

// The latency log's state: lines written, records dropped, write errors (the last one).
void add_log_status(nlohmann::json& j, const LatencyLogWriter* log) {
  if (log == nullptr) {
    j["log_path"] = nullptr;
    return;
  }
  const auto st = log->status();
  j["log_path"] = st.path;
  j["log_written"] = st.written;
  j["log_dropped"] = st.dropped;
  j["log_write_errors"] = st.write_errors;
  j["log_error"] = st.last_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(st.last_error);
}

}  // namespace

std::string handle_control_command(const std::string& line, ControlTarget& target,
                                   std::unique_lock<std::mutex>* lock) {
  Dispatcher* const dispatcher = target.dispatcher;
  std::string& configured_scheduler = *target.configured_scheduler;
  // A line ended by CRLF (a client such as socat's crlf or a Windows tool) means the same.
  std::string trimmed = line;
  while (!trimmed.empty() && (trimmed.back() == '\r' || trimmed.back() == ' ')) trimmed.pop_back();
  std::string cmd = trimmed, arg;
  if (auto sp = trimmed.find(' '); sp != std::string::npos) {
    cmd = trimmed.substr(0, sp);
    arg = trimmed.substr(sp + 1);
    while (!arg.empty() && (arg.front() == ' ')) arg.erase(0, 1);
    while (!arg.empty() && (arg.back() == ' ' || arg.back() == '\r')) arg.pop_back();
  }
  nlohmann::json reply;
  try {
    if (cmd == "show" || cmd == "stats") {
      if (dispatcher != nullptr) {
        const auto snap = dispatcher->snapshot();
        reply = cmd == "show" ? snapshot_json(snap) : stats_json(snap);
      } else {
        reply = {{"scheduler", configured_scheduler}, {"geometry", nullptr}, {"opened", false}};
      }
      reply["classes"] = target.classes;
      add_log_status(reply, target.log);
      reply["save_dir"] = target.save_dir.empty() ? nlohmann::json(nullptr)
                                                  : nlohmann::json(target.save_dir);
      reply["ok"] = true;
    } else if (cmd == "metrics") {
      if (target.metrics)
        reply = {{"ok", true}, {"metrics", target.metrics()}};
      else
        reply = {{"ok", false}, {"error", "metrics are not kept by this filter"}};
    } else if (cmd == "switch") {
      if (arg.empty()) {
        reply = {{"ok", false}, {"error", "switch needs a scheduler spec, e.g. switch asatf:w=30"}};
      } else if (dispatcher != nullptr) {
        const std::string previous = dispatcher->snapshot().scheduler;
        const std::string now = dispatcher->switch_scheduler(arg);
        reply = {{"ok", true}, {"scheduler", now}, {"previous", previous}};
      } else {
        // Validated now against an LBN-only model; applied when the device opens.
        const LbnModel probe(1ull << 40);
        const std::string now = make_scheduler(arg, probe)->spec();
        reply = {{"ok", true}, {"scheduler", now}, {"previous", configured_scheduler}};
        configured_scheduler = now;
      }
    } else if (cmd == "period") {
      if (arg != "refine" && arg != "fixed") {
        reply = {{"ok", false},
                 {"error", "period needs 'refine' (estimate the rotation period from "
                           "completions) or 'fixed' (the profile's), not '" + arg + "'"}};
      } else if (dispatcher == nullptr) {
        reply = {{"ok", false}, {"error", "period: no client has opened the device yet"}};
      } else {
        dispatcher->set_refine_period(arg == "refine");
        reply = snapshot_json(dispatcher->snapshot());
        reply["ok"] = true;
      }
    } else if (cmd == "tracks") {
      if (arg != "refine" && arg != "fixed") {
        reply = {{"ok", false},
                 {"error", "tracks needs 'refine' (correct each track's phase from "
                           "completions) or 'fixed' (keep the track angles as they are), not '" +
                               arg + "'"}};
      } else if (dispatcher == nullptr) {
        reply = {{"ok", false}, {"error", "tracks: no client has opened the device yet"}};
      } else {
        dispatcher->set_refine_track_phase(arg == "refine");
        reply = snapshot_json(dispatcher->snapshot());
        reply["ok"] = true;
      }
    } else if (cmd == "save") {
      // The daemon's working directory is not the caller's (nbdkit daemonized runs in
      // /): a bare name goes into sched-save-dir, a path must be absolute and in it.
      if (arg.empty()) {
        reply = {{"ok", false}, {"error", "save needs a file name, e.g. save refined.json"}};
      } else if (target.save_dir.empty()) {
        reply = {{"ok", false}, {"error", kSaveOff}};
      } else if (dispatcher == nullptr) {
        reply = {{"ok", false}, {"error", "save: no client has opened the device yet"}};
      } else {
        const DiskProfile p = dispatcher->current_profile();
        const std::string save_dir = target.save_dir;
        if (lock != nullptr) lock->unlock();
        const std::string saved =
            save_in_directory(save_dir, arg, profile_to_json(p).dump(2) + "\n");
        reply = {{"ok", true},
                 {"saved", saved},
                 {"rotation_ms", p.rotation_ms},
                 {"track_phases", p.track_phase.size()}};
      }
    } else if (cmd == "reopen") {
      // logrotate moved the log away: the next lines go to a new file at the path.
      if (!arg.empty()) {
        reply = {{"ok", false}, {"error", "reopen takes no argument"}};
      } else if (target.log == nullptr) {
        reply = {{"ok", false}, {"error", "reopen: no latency log is written (sched-log=)"}};
      } else {
        LatencyLogWriter* log = target.log;
        if (lock != nullptr) lock->unlock();
        log->reopen();
        reply = {{"ok", true}};
        add_log_status(reply, log);
      }
    } else {
      reply = {{"ok", false},
               {"error", "unknown command '" + cmd +
                             "'; valid: show, stats, metrics, switch SPEC, period refine|fixed, "
                             "tracks refine|fixed, save NAME.json, reopen"}};
    }
  } catch (const std::exception& e) {
    reply = {{"ok", false}, {"error", e.what()}};
  }
  // A command line is raw bytes: echoed back invalid UTF-8 must not make dump() throw.
  return reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace disksched
