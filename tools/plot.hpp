// Runs a matplotlib script from tools/plots/ with Debian's /usr/bin/python3 (the one
// that has python3-matplotlib), so plots work whatever python3 is first on PATH.
#pragma once

#include <string>
#include <vector>

namespace disksched::cli {

// Runs tools/plots/SCRIPT with ARGS. Throws with the script's exit status on failure.
void run_plot(const std::string& script, const std::vector<std::string>& args);

}  // namespace disksched::cli
