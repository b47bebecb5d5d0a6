// The control socket (sched-control=PATH): a Unix stream socket on which the daemon
// answers one command line per connection with one line of JSON, like writing to
// /sys/block/*/queue/scheduler. `disksched ctl PATH show|switch SPEC|stats` is the client.
//   show          {"scheduler":..., "geometry":..., "depth":..., "queued":..., ...}
//   switch SPEC   {"ok":true, "scheduler":NEW, "previous":OLD} or {"ok":false,"error":...}
//   stats         counters since start (see the man page)
//   metrics       {"ok":true, "metrics":TEXT}: the Prometheus text (metrics.hpp)
#pragma once

#include <functional>
#include <string>
#include <thread>

namespace disksched {

class ControlServer {
 public:
  using Handler = std::function<std::string(const std::string& line)>;

  // Binds and listens on `path` now, so a bad path stops start-up. A stale socket
  // nobody listens on is replaced; a live one is an error. Throws std::runtime_error.
  ControlServer(std::string path, Handler handler);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  void start();  // the serving thread (nbdkit: .after_fork)
  void stop();   // stops serving, removes the socket file
  const std::string& path() const { return path_; }

 private:
  void loop();

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd
  std::thread thread_;
};

// Sends one command line to the control socket at `path` and returns the reply line.
// Throws std::runtime_error naming the path and the failure.
std::string control_request(const std::string& path, const std::string& line,
                            int timeout_ms = 5000);

}  // namespace disksched
