#include "tools/commands.hpp"

namespace disksched::cli {

void add_sched_commands(CLI::App& /*app*/) {}

}  // namespace disksched::cli
