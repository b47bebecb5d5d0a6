#include "tools/commands.hpp"

namespace disksched::cli {

void add_sim_commands(CLI::App& /*app*/) {}

}  // namespace disksched::cli
