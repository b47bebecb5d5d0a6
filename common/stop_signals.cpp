#include "common/stop_signals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>

namespace disksched {

static_assert(std::size(StopSignals::kSignals) == 2, "previous_ holds one handler a signal");

void StopSignals::install(const char* who, void (*handler)(int, siginfo_t*, void*)) {
  if (pipe2(pipe_, O_CLOEXEC) == -1)
    throw std::runtime_error(std::string(who) + ": pipe: " + std::strerror(errno));
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &previous_[i]);
  installed_ = true;
}

void StopSignals::restore() {
  if (!installed_) return;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous_[i], nullptr);
  installed_ = false;
}

void StopSignals::close_pipe() {
  close(pipe_[0]);
  close(pipe_[1]);
  pipe_[0] = pipe_[1] = -1;
}

void StopSignals::wake(unsigned char b) const noexcept {
  const int saved = errno;
  [[maybe_unused]] ssize_t n = write(pipe_[1], &b, 1);
  errno = saved;
}

void StopSignals::chain(int sig, siginfo_t* info, void* context) const {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != sig) continue;
    const struct sigaction& p = previous_[i];
    if (p.sa_flags & SA_SIGINFO)
      p.sa_sigaction(sig, info, context);
    else if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN)
      p.sa_handler(sig);
  }
}

int StopSignals::next_byte(int ms) const {
  pollfd p{pipe_[0], POLLIN, 0};
  if (poll(&p, 1, ms) <= 0) return -1;
  unsigned char b = 0;
  return read(pipe_[0], &b, 1) == 1 ? b : -1;
}

}  // namespace disksched
