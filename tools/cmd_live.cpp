#include "tools/commands.hpp"

namespace disksched::cli {

void add_live_commands(CLI::App& /*app*/) {}

}  // namespace disksched::cli
