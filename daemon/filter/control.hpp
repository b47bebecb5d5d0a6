// The control socket (sched-control=PATH): a Unix stream socket on which the daemon
// answers one command line per connection with one line of JSON, like writing to
// /sys/block/*/queue/scheduler. `disksched ctl PATH show|switch SPEC|stats` is the client.
// Each connection is served by its own thread (at most kMaxClients at once), so a client
// that connects and says nothing delays nobody else.
//   show          {"scheduler":..., "geometry":..., "depth":..., "queued":..., ...}
//   switch SPEC   {"ok":true, "scheduler":NEW, "previous":OLD} or {"ok":false,"error":...}
//   stats         counters since start (see the man page)
//   metrics       {"ok":true, "metrics":TEXT}: the Prometheus text (metrics.hpp)
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <sys/types.h>

namespace disksched {

class ControlServer {
 public:
  using Handler = std::function<std::string(const std::string& line)>;

  // Binds and listens on `path` now, so a bad path stops start-up. A stale socket
  // nobody listens on is replaced; a live one is an error. Throws std::runtime_error.
  ControlServer(std::string path, Handler handler);

  static constexpr std::size_t kMaxLine = 65536;  // longer command lines get an error reply
  static constexpr std::size_t kMaxClients = 32;  // more at once get a "busy" reply
  // A client must send its whole line within this (and read its reply likewise).
  static constexpr int kIdleMs = 2000;
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  void start();  // the serving thread (nbdkit: .after_fork)
  // Stops serving (waits for the connections being answered) and removes the socket
  // file, unless the path now names another socket (another instance took it over).
  void stop();
  const std::string& path() const { return path_; }

 private:
  struct Client {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  void loop();
  void serve(int fd);
  void reap(bool all);

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd
  dev_t socket_dev_ = 0;  // the socket file this instance bound
  ino_t socket_ino_ = 0;
  std::thread thread_;
  std::list<std::unique_ptr<Client>> clients_;  // the accept thread's only
};

// Sends one command line to the control socket at `path` and returns the reply line.
// Throws std::runtime_error naming the path and the failure.
std::string control_request(const std::string& path, const std::string& line,
                            int timeout_ms = 5000);

}  // namespace disksched
