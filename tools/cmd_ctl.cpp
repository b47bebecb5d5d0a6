// `disksched ctl`: one command to a running filter's control socket (or an instance's, by
// name), its JSON reply printed as text or as it came.
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "daemon/filter/control.hpp"
#include "tools/commands.hpp"
#include "tools/instance.hpp"

namespace disksched::cli {
namespace {

void print_reply(const std::string& command, const nlohmann::json& j) {
  if (command == "metrics") {
    std::cout << j.value("metrics", std::string());
    return;
  }
  if (command.rfind("switch", 0) == 0) {
    std::cout << fmt::format("scheduler: {} -> {}\n", j.value("previous", "?"),
                             j.value("scheduler", "?"));
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "ok") continue;
    std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    std::cout << fmt::format("{:<26} {}\n", it.key(), v);
  }
}

void run_ctl(const std::string& socket, const std::vector<std::string>& words, bool json) {
  std::string line;
  for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
  const std::string reply = control_request(socket, line);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(reply);
  } catch (const std::exception&) {
    throw std::runtime_error(fmt::format("control socket '{}' answered something that is not "
                                         "JSON: {}",
                                         socket, reply));
  }
  if (!j.value("ok", false))
    throw std::runtime_error(fmt::format("{}: {}", line, j.value("error", std::string("failed"))));
  if (json)
    std::cout << j.dump(2) << "\n";
  else
    print_reply(line, j);
}

}  // namespace

void add_ctl_command(CLI::App& app) {
  auto socket = std::make_shared<std::string>();
  auto words = std::make_shared<std::vector<std::string>>();
  auto ctl_json = std::make_shared<bool>(false);
  auto* ctl = app.add_subcommand(
      "ctl", "talk to a running filter's control socket (sched-control=PATH) or instance "
             "(disksched@NAME): show | stats | metrics | switch SPEC | period refine|fixed | "
             "tracks refine|fixed | save PROFILE.json | reopen");
  ctl->add_option("socket", *socket,
                  "the control socket, or an instance name (NAME: " + instance_run_dir() +
                      "/NAME/control.sock)")
      ->required();
  ctl->add_option("command", *words, "show | stats | metrics | switch SPEC | period refine|fixed | tracks refine|fixed | save PROFILE.json | reopen")
      ->required()
      ->expected(1, 2);
  ctl->add_flag("--json", *ctl_json, "print the daemon's JSON reply");
  ctl->footer(
      "In show and stats: delta_ms is the calibrated overhead between a dispatch and the "
      "device starting it; calibrating true means it is recalibrated from completions every "
      "128 (sched-delta=auto, the default), false that sched-delta=TIME fixed it. "
      "nbdkit-disksched-filter(1), \"Live head tracking\", says more.");
  ctl->callback([socket, words, ctl_json] {
    const std::string& c = words->front();
    if (c != "show" && c != "stats" && c != "metrics" && c != "switch" && c != "period" &&
        c != "tracks" && c != "save" && c != "reopen")
      throw std::invalid_argument(fmt::format(
          "unknown ctl command '{}'; valid: show, stats, metrics, switch SPEC, period refine|fixed, "
          "tracks refine|fixed, save PROFILE.json, reopen",
          c));
    if (c == "save") {
      if (words->size() != 2)
        throw std::invalid_argument(
            "ctl save needs the file to write, e.g. save refined.json (a name in the "
            "filter's sched-save-dir)");
      // A bare name is one in the filter's sched-save-dir; a path is the caller's, and the
      // daemon resolves paths from its own directory: send an absolute one.
      if ((*words)[1].find('/') != std::string::npos)
        (*words)[1] = std::filesystem::absolute((*words)[1]).string();
    }
    if (c == "switch" && words->size() != 2)
      throw std::invalid_argument("ctl switch needs a scheduler spec, e.g. switch asatf:w=30");
    const bool refine_word = words->size() == 2 && ((*words)[1] == "refine" || (*words)[1] == "fixed");
    if (c == "period" && !refine_word)
      throw std::invalid_argument(
          "ctl period needs 'refine' (estimate the rotation period from completions) or "
          "'fixed' (keep the geometry's)");
    if (c == "tracks" && !refine_word)
      throw std::invalid_argument(
          "ctl tracks needs 'refine' (correct each track's phase from completions) or "
          "'fixed' (keep the track angles as they are)");
    if (c != "switch" && c != "period" && c != "tracks" && c != "save" && words->size() != 1)
      throw std::invalid_argument(fmt::format("ctl {} takes no argument", c));
    run_ctl(control_socket_for(*socket), *words, *ctl_json);
  });

}

}  // namespace disksched::cli
