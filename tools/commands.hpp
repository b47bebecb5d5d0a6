// Each family of `disksched` subcommands registers itself on the top-level app.
#pragma once

#include <CLI/CLI.hpp>

namespace disksched::cli {

void add_model_commands(CLI::App& app);    // model show|seek|map|zones
void add_sched_commands(CLI::App& app);    // sched list
void add_sim_commands(CLI::App& app);      // sim, sweep, repro
void add_replay_command(CLI::App& app);    // replay
void add_ctl_command(CLI::App& app);       // ctl
void add_log_commands(CLI::App& app);      // log summary|compare
void add_extract_commands(CLI::App& app);  // extract
void add_validate_commands(CLI::App& app); // validate
void add_export_command(CLI::App& app);    // export
void add_predicts_command(CLI::App& app);  // predicts

}  // namespace disksched::cli
