#include "daemon/filter/graceful_stop.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "common/stop_signals.hpp"

namespace disksched {
namespace {

// One per process (signal handlers are): its pipe and nbdkit's handlers.
StopSignals signals;

void on_signal(int sig, siginfo_t*, void*) { signals.wake(static_cast<unsigned char>(sig)); }

void restore_handlers() { signals.restore(); }

// Waits up to `ms` for a byte on the pipe; returns it, or -1 on timeout.
int next_byte(int ms) { return signals.next_byte(ms); }

}  // namespace

GracefulStop::GracefulStop(Options options, std::function<bool()> idle,
                           std::function<void()> end_connections)
    : options_(options), idle_(std::move(idle)), end_connections_(std::move(end_connections)) {}

GracefulStop::~GracefulStop() { stop(); }

void GracefulStop::start() {
  if (thread_.joinable()) return;
  signals.install("graceful stop", on_signal);
  thread_ = std::thread([this] { run(); });
}

void GracefulStop::stop() {
  if (!thread_.joinable()) return;
  signals.wake(0);  // "exit" to the thread
  thread_.join();
  restore_handlers();
  signals.close_pipe();
}

int GracefulStop::until_quiet(Clock::time_point until, bool signal_ends) {
  auto quiet_since = Clock::time_point::max();
  // Polls the filter every 10 ms: it says nothing when it goes idle.
  for (auto now = Clock::now(); now < until; now = Clock::now()) {
    if (!idle_())
      quiet_since = Clock::time_point::max();
    else if (quiet_since == Clock::time_point::max())
      quiet_since = now;
    else if (now - quiet_since >= options_.quiet)
      break;
    const int b = next_byte(10);
    if (b == 0 || (b > 0 && signal_ends)) return b;
  }
  return -1;
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
  // A second signal ends the drain at once; cleanup (0) means nbdkit is stopping anyway.
  if (until_quiet(Clock::now() + options_.limit, true) == 0) return;
  // Whatever is still coming fails at once (hurrying()). nbdkit 1.32 aborts when a
  // connection ends while two of its threads send replies (raw_send_socket: 'sock >= 0'),
  // so the connections are ended only once the filter has gone quiet, or after `settle`.
  hurrying_.store(true, std::memory_order_release);
  restore_handlers();
  raise(sig);             // nbdkit's own handler: stop serving
  if (until_quiet(Clock::now() + options_.settle, false) == 0) return;
  // nbdkit waits for every connection to end; an idle client would never end its own.
  do {
    if (end_connections_) end_connections_();
  } while (next_byte(100) != 0);
}

}  // namespace disksched
