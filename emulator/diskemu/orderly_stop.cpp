#include "emulator/diskemu/orderly_stop.hpp"

#include <cerrno>
#include <utility>

#include "common/served_connections.hpp"
#include "common/stop_signals.hpp"

namespace disksched::diskemu {
namespace {

StopSignals signals;

// Wakes the thread, then runs what was there before (nbdkit's handler sets its quit flag).
void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  signals.wake(static_cast<unsigned char>(sig));
  signals.chain(sig, info, context);
  errno = saved;
}

}  // namespace

OrderlyStop::OrderlyStop(std::function<void()> on_signal) : on_signal_(std::move(on_signal)) {}

OrderlyStop::~OrderlyStop() { stop(); }

void OrderlyStop::start() {
  if (thread_.joinable()) return;
  signals.install("orderly stop", on_signal);
  thread_ = std::thread([this] { run(); });
}

void OrderlyStop::stop() {
  if (!thread_.joinable()) return;
  signals.restore();
  signals.wake(0);  // "exit" to the thread
  thread_.join();
  signals.close_pipe();
}

void OrderlyStop::run() {
  int b = -1;
  while (b < 0) b = signals.next_byte(-1);
  if (b == 0) return;
  on_signal_();
  do shut_down_served_connections();
  while (signals.next_byte(100) != 0);
}

}  // namespace disksched::diskemu
