#include "daemon/filter/graceful_stop.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace disksched {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT};
// One instance per process (signal handlers are): its pipe and nbdkit's handlers.
int wake_pipe[2] = {-1, -1};
struct sigaction previous[2];
bool installed = false;

void on_signal(int sig) {
  const unsigned char b = static_cast<unsigned char>(sig);
  const int saved = errno;
  [[maybe_unused]] ssize_t n = write(wake_pipe[1], &b, 1);
  errno = saved;
}

void restore_handlers() {
  if (!installed) return;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous[i], nullptr);
  installed = false;
}

// Waits up to `ms` for a byte on the pipe; returns it, or -1 on timeout.
int next_byte(int ms) {
  pollfd p{wake_pipe[0], POLLIN, 0};
  if (poll(&p, 1, ms) <= 0) return -1;
  unsigned char b = 0;
  return read(wake_pipe[0], &b, 1) == 1 ? b : -1;
}

}  // namespace

GracefulStop::GracefulStop(Options options, std::function<bool()> idle,
                           std::function<void()> end_connections)
    : options_(options), idle_(std::move(idle)), end_connections_(std::move(end_connections)) {}

GracefulStop::~GracefulStop() { stop(); }

void GracefulStop::start() {
  if (thread_.joinable()) return;
  if (pipe2(wake_pipe, O_CLOEXEC) == -1)
    throw std::runtime_error(std::string("graceful stop: pipe: ") + std::strerror(errno));
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &previous[i]);
  installed = true;
  thread_ = std::thread([this] { run(); });
}

void GracefulStop::stop() {
  if (!thread_.joinable()) return;
  const unsigned char zero = 0;  // "exit" to the thread
  [[maybe_unused]] ssize_t n = write(wake_pipe[1], &zero, 1);
  thread_.join();
  restore_handlers();
  close(wake_pipe[0]);
  close(wake_pipe[1]);
  wake_pipe[0] = wake_pipe[1] = -1;
}

void GracefulStop::run() {
  int sig = -1;
  while (sig <= 0) {
    sig = next_byte(-1);
    if (sig == 0) return;
  }
  stopping_.store(true, std::memory_order_release);
  if (!idle_())   // an idle server (nbdkit --run ending) stops without a word
    fprintf(stderr,
            "nbdkit: disksched: %s: serving the requests clients have sent (at most %lld "
            "ms), then stopping; signal again to stop at once\n",
            strsignal(sig), static_cast<long long>(options_.limit.count()));
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + options_.limit;
  auto quiet_since = Clock::time_point::max();
  // Polls the filter every 10 ms: it says nothing when it goes idle.
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) break;
    if (!idle_())
      quiet_since = Clock::time_point::max();
    else if (quiet_since == Clock::time_point::max())
      quiet_since = now;
    else if (now - quiet_since >= options_.quiet)
      break;
    const int b = next_byte(10);
    if (b == 0) return;   // cleanup: nbdkit is stopping anyway
    if (b > 0) break;     // a second signal
  }
  // Whatever is still coming fails at once (hurrying()). nbdkit 1.32 aborts when a
  // connection ends while two of its threads send replies (raw_send_socket: 'sock >= 0'),
  // so the connections are ended only once the filter has gone quiet, or after `settle`.
  hurrying_.store(true, std::memory_order_release);
  restore_handlers();
  raise(sig);             // nbdkit's own handler: stop serving
  const auto settled = Clock::now() + options_.settle;
  quiet_since = Clock::time_point::max();
  while (Clock::now() < settled) {
    if (!idle_())
      quiet_since = Clock::time_point::max();
    else if (quiet_since == Clock::time_point::max())
      quiet_since = Clock::now();
    else if (Clock::now() - quiet_since >= options_.quiet)
      break;
    if (next_byte(10) == 0) return;
  }
  // nbdkit waits for every connection to end; an idle client would never end its own.
  do {
    if (end_connections_) end_connections_();
  } while (next_byte(100) != 0);
}

}  // namespace disksched
