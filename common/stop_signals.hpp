// SIGTERM and SIGINT taken over for a thread of one's own: the handler writes the
// signal's number to a pipe (the async-signal-safe way to wake a thread) and the thread
// waits on it. Signal handlers are process-wide: one object per component, which its
// handler reaches as a variable of that component's own (a plugin and a filter in one
// nbdkit each have theirs). What becomes of the handlers found at install() is the
// component's: diskemu's handler chains to them (chain()), the filter's stop restores
// them and raises the signal again.
//
// No destructor: a component ends its thread (writing 0, the owner's "exit"), then calls
// restore() and close_pipe(), in its own order.
#pragma once

#include <signal.h>

namespace disksched {

class StopSignals {
 public:
  static constexpr int kSignals[] = {SIGTERM, SIGINT};

  // Opens the pipe and installs `handler` (SA_SIGINFO, SA_RESTART) for both signals,
  // keeping the handlers found. Throws std::runtime_error naming `who` when the pipe
  // cannot be made.
  void install(const char* who, void (*handler)(int, siginfo_t*, void*));
  // Puts back the handlers found at install(); nothing when they are back already.
  void restore();
  // Closes the pipe, once the thread that waits on it has ended.
  void close_pipe();

  // From a handler or any thread: byte `b` to the pipe (errno kept).
  void wake(unsigned char b) const noexcept;
  // From a handler: runs the handler found at install() for `sig`, unless that was the
  // default action or ignore.
  void chain(int sig, siginfo_t* info, void* context) const;
  // Waits up to `ms` (-1: for ever) for a byte from the pipe; returns it, or -1 on timeout.
  int next_byte(int ms) const;

 private:
  int pipe_[2] = {-1, -1};
  struct sigaction previous_[2] = {};
  bool installed_ = false;
};

}  // namespace disksched
