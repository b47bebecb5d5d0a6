#include "emulator/diskemu/orderly_stop.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/served_connections.hpp"

namespace disksched::diskemu {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT};
int wake_pipe[2] = {-1, -1};
struct sigaction previous[std::size(kSignals)];
bool installed = false;

// Wakes the thread, then runs what was there before (nbdkit's handler sets its quit flag).
void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  const unsigned char b = static_cast<unsigned char>(sig);
  [[maybe_unused]] ssize_t n = write(wake_pipe[1], &b, 1);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != sig) continue;
    const struct sigaction& p = previous[i];
    if (p.sa_flags & SA_SIGINFO)
      p.sa_sigaction(sig, info, context);
    else if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN)
      p.sa_handler(sig);
  }
  errno = saved;
}

// A byte from the pipe within `ms` (-1: none).
int next_byte(int ms) {
  pollfd p{wake_pipe[0], POLLIN, 0};
  if (poll(&p, 1, ms) <= 0) return -1;
  unsigned char b = 0;
  return read(wake_pipe[0], &b, 1) == 1 ? b : -1;
}

}  // namespace

OrderlyStop::OrderlyStop(std::function<void()> on_signal) : on_signal_(std::move(on_signal)) {}

OrderlyStop::~OrderlyStop() { stop(); }

void OrderlyStop::start() {
  if (thread_.joinable()) return;
  if (pipe2(wake_pipe, O_CLOEXEC) == -1)
    throw std::runtime_error(std::string("orderly stop: pipe: ") + std::strerror(errno));
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &previous[i]);
  installed = true;
  thread_ = std::thread([this] { run(); });
}

void OrderlyStop::stop() {
  if (!thread_.joinable()) return;
  if (installed) {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous[i], nullptr);
    installed = false;
  }
  const unsigned char zero = 0;  // "exit" to the thread
  [[maybe_unused]] ssize_t n = write(wake_pipe[1], &zero, 1);
  thread_.join();
  close(wake_pipe[0]);
  close(wake_pipe[1]);
  wake_pipe[0] = wake_pipe[1] = -1;
}

void OrderlyStop::run() {
  int b = -1;
  while (b < 0) b = next_byte(-1);
  if (b == 0) return;
  on_signal_();
  do shut_down_served_connections();
  while (next_byte(100) != 0);
}

}  // namespace disksched::diskemu
