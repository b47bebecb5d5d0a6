// What diskemu does when nbdkit is told to stop (SIGTERM, SIGINT), as a drive whose host
// powers it down in order: the write cache goes to the media at once, and the server is
// let exit. nbdkit 1.32 waits for every client to disconnect, and one that stays
// connected and idle (nbdfuse, the kernel's client) never does; whatever then kills the
// server would be a power cut. So after the signal the connections nbdkit accepted are
// ended (common/served_connections.hpp), again every 100 ms, until .cleanup.
//
// The handlers are chained: the one found at start() (nbdkit's, or a filter's installed
// before) still runs. A filter installed after (disksched's graceful stop) hands the
// signal on to this one when its own drain is done.
#pragma once

#include <functional>
#include <thread>

namespace disksched::diskemu {

class OrderlyStop {
 public:
  // `on_signal` runs once, on this class's thread, when the first signal arrives.
  explicit OrderlyStop(std::function<void()> on_signal);
  ~OrderlyStop();
  OrderlyStop(const OrderlyStop&) = delete;
  OrderlyStop& operator=(const OrderlyStop&) = delete;

  // Installs the handlers (.after_fork); one instance per process. Throws on failure.
  void start();
  // Restores the handlers found at start() and ends the thread (.cleanup).
  void stop();

 private:
  void run();

  std::function<void()> on_signal_;
  std::thread thread_;
};

}  // namespace disksched::diskemu
