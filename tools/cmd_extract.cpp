#include "tools/commands.hpp"

namespace disksched::cli {

void add_extract_commands(CLI::App& /*app*/) {}

}  // namespace disksched::cli
