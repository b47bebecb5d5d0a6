// disksched: the command line of the disk scheduling toolkit.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "tools/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"disksched: schedule disk I/O the way the disk's mechanics want it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "disksched 0.1.0");
  disksched::cli::add_model_commands(app);
  disksched::cli::add_sched_commands(app);
  disksched::cli::add_sim_commands(app);
  disksched::cli::add_replay_command(app);
  disksched::cli::add_ctl_command(app);
  disksched::cli::add_log_commands(app);
  disksched::cli::add_extract_commands(app);
  disksched::cli::add_validate_commands(app);
  disksched::cli::add_export_command(app);
  disksched::cli::add_predicts_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "disksched: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
