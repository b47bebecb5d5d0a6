// Stopping without failing what clients already sent. nbdkit 1.32 answers every
// request it has not yet read from the socket when SIGTERM arrives with ESHUTDOWN, so a
// deep client queue (more requests than worker threads) loses most of them. GracefulStop
// takes SIGTERM and SIGINT over from nbdkit: the server keeps serving until the filter
// has held no request for `quiet` (the clients' queues are empty) or `limit` has passed
// since the signal, whichever comes first, and then hands the signal to nbdkit's own
// handler. A second signal stops at once. New connections are refused meanwhile.
// nbdkit 1.32 then still waits for every connection to end, and an idle client that
// stays connected (nbdfuse, the kernel's client) never ends its own: once the signal is
// handed on (and, after a second signal, once the filter has gone quiet: new requests
// fail at once meanwhile), `end_connections` ends them (common/served_connections.hpp), and again
// every 100 ms for one accepted meanwhile, until .cleanup stops the thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace disksched {

class GracefulStop {
 public:
  struct Options {
    std::chrono::milliseconds quiet{100};
    std::chrono::milliseconds limit{10000};
    // After a second signal or `limit`: how long the filter may take to go quiet
    // (requests failing at once) before the connections are ended anyway.
    std::chrono::milliseconds settle{2000};
  };
  // `idle` says whether the filter holds no request now (called from the stop thread);
  // `end_connections` makes the served connections end (called from it too).
  GracefulStop(Options options, std::function<bool()> idle,
               std::function<void()> end_connections);
  ~GracefulStop();
  GracefulStop(const GracefulStop&) = delete;
  GracefulStop& operator=(const GracefulStop&) = delete;

  // Installs the handlers; call after nbdkit installed its own (.after_fork).
  void start();
  // Restores nbdkit's handlers and ends the thread (.cleanup).
  void stop();
  // A signal arrived: the server is draining.
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  // A second signal arrived or `limit` passed: requests are to fail at once (ESHUTDOWN).
  bool hurrying() const { return hurrying_.load(std::memory_order_acquire); }

 private:
  using Clock = std::chrono::steady_clock;
  void run();
  // Waits until the filter has held no request for `quiet`, or until `until`. Returns the
  // byte that ended it early: 0 (cleanup), or a signal when `signal_ends`; else -1.
  int until_quiet(Clock::time_point until, bool signal_ends);

  Options options_;
  std::function<bool()> idle_;
  std::function<void()> end_connections_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> hurrying_{false};
};

}  // namespace disksched
