#include "daemon/filter/control_save.hpp"
#include "common/unique_fd.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/regular_file.hpp"

namespace disksched {
namespace {

std::runtime_error failure(const std::string& what) { return std::runtime_error(what); }

std::string errno_text() { return std::strerror(errno); }


}  // namespace

const char* const kSaveOff =
    "save is off: the filter writes files only into the directory given by "
    "sched-save-dir=DIR (start nbdkit with it to allow save)";

std::string save_in_directory(const std::string& save_dir, const std::string& target,
                              const std::string& contents) {
  if (save_dir.empty()) throw failure(kSaveOff);
  std::string dir_named, name = target;
  if (const auto slash = target.rfind('/'); slash != std::string::npos) {
    if (target.front() != '/')
      throw failure(fmt::format("save needs a file name or an absolute path, not '{}'", target));
    dir_named = slash == 0 ? "/" : target.substr(0, slash);
    name = target.substr(slash + 1);
  }
  if (name.empty() || name == "." || name == "..")
    throw failure(fmt::format("save needs a file name, e.g. save refined.json, not '{}'", target));

  UniqueFd dir(open(save_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0)
    throw failure(fmt::format("sched-save-dir={}: {}", save_dir, errno_text()));
  if (!dir_named.empty()) {
    struct stat want{}, got{};
    if (fstat(dir.get(), &want) != 0 || stat(dir_named.c_str(), &got) != 0 ||
        want.st_dev != got.st_dev || want.st_ino != got.st_ino)
      throw failure(fmt::format(
          "'{}' is not in the save directory '{}' (sched-save-dir=): give a file name, "
          "e.g. save {}, or a path in that directory",
          target, save_dir, name));
  }
  const std::string shown = save_dir + (save_dir.back() == '/' ? "" : "/") + name;

  try {
    replace_file_at(dir.get(), name, contents, shown);
  } catch (const FileError& e) {
    throw failure(fmt::format("cannot save: {}", e.what()));
  }
  return shown;
}

}  // namespace disksched
