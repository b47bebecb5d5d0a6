// Each family of `disksched` subcommands registers itself on the top-level app.
#pragma once

#include <CLI/CLI.hpp>

namespace disksched::cli {

void add_model_commands(CLI::App& app);    // model show|seek|map|zones
void add_sched_commands(CLI::App& app);    // sched list
void add_sim_commands(CLI::App& app);      // sim, sweep, repro
void add_live_commands(CLI::App& app);     // replay, ctl, log
void add_extract_commands(CLI::App& app);  // extract
void add_validate_commands(CLI::App& app); // validate

}  // namespace disksched::cli
