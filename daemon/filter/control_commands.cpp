#include "daemon/filter/control_commands.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "daemon/filter/control_save.hpp"
#include "predictor/lbn_model.hpp"
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

nlohmann::json failure(const std::string& error) { return {{"ok", false}, {"error", error}}; }

nlohmann::json not_opened(std::string_view command) {
  return failure(std::string(command) + ": no client has opened the device yet");
}

ControlReply show_or_stats(bool stats, ControlTarget& t) {
  nlohmann::json reply;
  if (t.dispatcher != nullptr) {
    const auto snap = t.dispatcher->snapshot();
    reply = stats ? stats_json(snap) : snapshot_json(snap);
  } else {
    reply = {{"scheduler", t.configured_scheduler->text()},
             {"geometry", nullptr},
             {"opened", false}};
  }
  reply["classes"] = t.classes;
  add_log_status(reply, t.log);
  reply["save_dir"] = t.save_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.save_dir);
  reply["ok"] = true;
  return {reply};
}

ControlReply show(const std::string&, ControlTarget& t) { return show_or_stats(false, t); }
ControlReply stats(const std::string&, ControlTarget& t) { return show_or_stats(true, t); }

ControlReply metrics(const std::string&, ControlTarget& t) {
  if (!t.metrics) return {failure("metrics are not kept by this filter")};
  return {{{"ok", true}, {"metrics", t.metrics()}}};
}

ControlReply switch_to(const std::string& spec, ControlTarget& t) {
  if (t.dispatcher != nullptr) {
    const std::string previous = t.dispatcher->scheduler();
    const std::string now = t.dispatcher->switch_scheduler(spec);
    return {{{"ok", true}, {"scheduler", now}, {"previous", previous}}};
  }
  // Checked now against an LBN-only model; applied when the device opens.
  const LbnModel probe(1ull << 40);
  SchedulerSpec now = Registry::builtin().check(spec, probe);
  ControlReply r{{{"ok", true}, {"scheduler", now.text()},
                  {"previous", t.configured_scheduler->text()}}};
  *t.configured_scheduler = std::move(now);
  return r;
}

// `period` and `tracks`: turn one refinement on or off, then show the state.
ControlReply refine(std::string_view command, void (Dispatcher::*set)(bool), bool on,
                    ControlTarget& t) {
  if (t.dispatcher == nullptr) return {not_opened(command)};
  (t.dispatcher->*set)(on);
  nlohmann::json reply = snapshot_json(t.dispatcher->snapshot());
  reply["ok"] = true;
  return {reply};
}

ControlReply period(const std::string& arg, ControlTarget& t) {
  return refine("period", &Dispatcher::set_refine_period, arg == "refine", t);
}

ControlReply tracks(const std::string& arg, ControlTarget& t) {
  return refine("tracks", &Dispatcher::set_refine_track_phase, arg == "refine", t);
}

// The daemon's working directory is not the caller's (nbdkit daemonized runs in /): a bare
// name goes into sched-save-dir, a path must be absolute and in it.
ControlReply save(const std::string& name, ControlTarget& t) {
  if (t.save_dir.empty()) return {failure(kSaveOff)};
  if (t.dispatcher == nullptr) return {not_opened("save")};
  return {{}, [p = t.dispatcher->current_profile(), dir = t.save_dir, name] {
            const std::string saved =
                save_in_directory(dir, name, profile_to_json(p).dump(2) + "\n");
            return nlohmann::json{{"ok", true},
                                  {"saved", saved},
                                  {"rotation_ms", p.rotation_ms},
                                  {"track_phases", p.track_phase.size()}};
          }};
}

// logrotate moved the log away: the next lines go to a new file at the path.
ControlReply reopen(const std::string&, ControlTarget& t) {
  if (t.log == nullptr) return {failure("reopen: no latency log is written (sched-log=)")};
  return {{}, [log = t.log] {
            log->reopen();
            nlohmann::json reply = {{"ok", true}};
            add_log_status(reply, log);
            return reply;
          }};
}

enum class Argument {
  ignored,   // anything after the name is ignored
  none,      // refused
  required,  // must be there (and one of `choices`, when given)
};

constexpr std::string_view kRefineOrFixed[] = {"refine", "fixed"};

struct ControlCommand {
  std::string_view name;
  std::string_view usage;  // as the unknown-command reply lists it
  Argument argument;
  std::string_view needs;  // what a required argument is, for the error when it is not
  std::span<const std::string_view> choices;
  ControlReply (*handle)(const std::string& arg, ControlTarget& target);
};

const ControlCommand kCommands[] = {
    {"show", "show", Argument::ignored, "", {}, show},
    {"stats", "stats", Argument::ignored, "", {}, stats},
    {"metrics", "metrics", Argument::ignored, "", {}, metrics},
    {"switch", "switch SPEC", Argument::required,
     "a scheduler spec, e.g. switch asatf:w=30", {}, switch_to},
    {"period", "period refine|fixed", Argument::required,
     "'refine' (estimate the rotation period from completions) or 'fixed' (the profile's)",
     kRefineOrFixed, period},
    {"tracks", "tracks refine|fixed", Argument::required,
     "'refine' (correct each track's phase from completions) or 'fixed' (keep the track "
     "angles as they are)",
     kRefineOrFixed, tracks},
    {"save", "save NAME.json", Argument::required, "a file name, e.g. save refined.json", {},
     save},
    {"reopen", "reopen", Argument::none, "", {}, reopen},
};

// Why `arg` does not fit `c`'s argument, or empty when it does.
std::string argument_error(const ControlCommand& c, const std::string& arg) {
  const std::string name(c.name);
  if (c.argument == Argument::none && !arg.empty()) return name + " takes no argument";
  if (c.argument != Argument::required) return "";
  if (!c.choices.empty()) {
    if (std::find(c.choices.begin(), c.choices.end(), arg) != c.choices.end()) return "";
    return name + " needs " + std::string(c.needs) + ", not '" + arg + "'";
  }
  return arg.empty() ? name + " needs " + std::string(c.needs) : "";
}

std::string unknown_command(const std::string& cmd) {
  std::string valid;
  for (const ControlCommand& c : kCommands) valid += (valid.empty() ? "" : ", ") + std::string(c.usage);
  return "unknown command '" + cmd + "'; valid: " + valid;
}

// A command line is raw bytes: echoed back invalid UTF-8 must not make dump() throw.
std::string dump(const nlohmann::json& reply) {
  return reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

ControlReply run_control_command(const std::string& line, ControlTarget& target) {
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
  const auto c = std::find_if(std::begin(kCommands), std::end(kCommands),
                              [&](const ControlCommand& k) { return k.name == cmd; });
  if (c == std::end(kCommands)) return {failure(unknown_command(cmd))};
  if (std::string e = argument_error(*c, arg); !e.empty()) return {failure(e)};
  try {
    return c->handle(arg, target);
  } catch (const std::exception& e) {
    return {failure(e.what())};
  }
}

std::string ControlReply::finish() {
  if (unlocked) {
    try {
      reply = unlocked();
    } catch (const std::exception& e) {
      reply = failure(e.what());
    }
    unlocked = nullptr;
  }
  return dump(reply);
}

std::string handle_control_command(const std::string& line, ControlTarget& target,
                                   std::unique_lock<std::mutex>* lock) {
  ControlReply r = run_control_command(line, target);
  if (r.unlocked && lock != nullptr) lock->unlock();
  return r.finish();
}

}  // namespace disksched
