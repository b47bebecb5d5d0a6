#include "common/install_dirs.hpp"

#include <filesystem>
#include <system_error>

#ifndef DISKSCHED_BINDIR_TO_DATADIR
#error "DISKSCHED_BINDIR_TO_DATADIR must be defined by the build"
#endif

namespace disksched {

std::optional<std::string> installed_data_dir(std::string_view sub) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const fs::path dir =
      (exe.parent_path() / DISKSCHED_BINDIR_TO_DATADIR / "disksched" / sub).lexically_normal();
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  return dir.string();
}

}  // namespace disksched
