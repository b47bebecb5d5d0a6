// Runs a matplotlib script with Debian's /usr/bin/python3 (the one that has
// python3-matplotlib), so plots work whatever python3 is first on PATH. Installed, the
// scripts are in $datadir/disksched/plots; from the build directory, in the source tree
// (tools/plots/, tools/extract/).
#pragma once

#include <string>
#include <vector>

namespace disksched::cli {

// Runs SCRIPT (a file name) with ARGS. Throws with the script's exit status on failure.
void run_plot(const std::string& script, const std::vector<std::string>& args);

}  // namespace disksched::cli
