#include "tools/commands.hpp"

namespace disksched::cli {

void add_model_commands(CLI::App& /*app*/) {}

}  // namespace disksched::cli
