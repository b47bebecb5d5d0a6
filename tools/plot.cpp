#include "tools/plot.hpp"

#include <filesystem>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/install_dirs.hpp"

#ifndef DISKSCHED_TOOLS_SOURCE_DIR
#error "DISKSCHED_TOOLS_SOURCE_DIR must be defined by the build"
#endif

namespace disksched::cli {
namespace {

// The installed copy when this binary is installed; otherwise the source tree's.
std::string script_path(const std::string& script) {
  if (auto dir = installed_data_dir("plots")) return *dir + "/" + script;
  const std::string src = DISKSCHED_TOOLS_SOURCE_DIR;
  for (const char* sub : {"/plots/", "/extract/"})
    if (std::filesystem::exists(src + sub + script)) return src + sub + script;
  return src + "/plots/" + script;
}

}  // namespace

void run_plot(const std::string& script, const std::vector<std::string>& args) {
  const std::string path = script_path(script);
  std::vector<std::string> argv_s = {"/usr/bin/python3", path};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("plot: fork failed");
  if (pid == 0) {
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(fmt::format(
        "plot: {} failed (exit {}); is python3-matplotlib installed for /usr/bin/python3?", path,
        WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

}  // namespace disksched::cli
