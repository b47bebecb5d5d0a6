#include "tools/plot.hpp"

#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#ifndef DISKSCHED_PLOTS_DIR
#error "DISKSCHED_PLOTS_DIR must be defined by the build"
#endif

namespace disksched::cli {

void run_plot(const std::string& script, const std::vector<std::string>& args) {
  const std::string path = std::string(DISKSCHED_PLOTS_DIR) + "/" + script;
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
