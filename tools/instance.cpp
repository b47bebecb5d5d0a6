#include "tools/instance.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched::cli {

std::string instance_run_dir() {
  if (const char* d = std::getenv("DISKSCHED_RUN_DIR"); d && *d) return d;
  return "/run/disksched";
}

std::string control_socket_for(const std::string& target) {
  namespace fs = std::filesystem;
  if (target.find('/') != std::string::npos || fs::exists(target)) return target;
  const std::string path = fmt::format("{}/{}/control.sock", instance_run_dir(), target);
  if (!fs::exists(path))
    throw std::runtime_error(fmt::format(
        "no disksched instance '{0}': {1} does not exist (is it running? systemctl status "
        "disksched@{0}); give a socket path with a '/' to reach a filter started by hand",
        target, path));
  return path;
}

}  // namespace disksched::cli
