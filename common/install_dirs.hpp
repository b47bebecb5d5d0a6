// Where an installed `disksched` keeps its data files (the plot scripts), found from the
// running binary's own path, so an install under any prefix or --destdir finds its own
// files. Run from the build directory there is no such folder and callers fall back to
// the source tree.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace disksched {

// `<the binary's folder>/<bindir -> datadir>/disksched/<sub>` when it is a directory.
std::optional<std::string> installed_data_dir(std::string_view sub);

}  // namespace disksched
