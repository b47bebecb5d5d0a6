#include "daemon/filter/control.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace disksched {
namespace {

sockaddr_un address_of(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(a.sun_path))
    throw std::runtime_error(fmt::format("control socket path '{}' must be 1 to {} bytes", path,
                                         sizeof(a.sun_path) - 1));
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(fmt::format("{}: {}", what, std::strerror(errno)));
}

enum class LineResult { Line, TooLong, Nothing };

// Reads until '\n' (dropped, with a '\r' before it) or EOF, at most `max` bytes, waiting
// at most timeout_ms for the whole line (a client sending a byte now and then must not
// hold its slot for ever); returns early when `stop_fd` becomes readable.
LineResult read_line(int fd, std::string& out, int timeout_ms, std::size_t max,
                     int stop_fd = -1) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return LineResult::Nothing;
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    const int r = poll(p, stop_fd >= 0 ? 2 : 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || (stop_fd >= 0 && p[1].revents != 0)) return LineResult::Nothing;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out.empty() ? LineResult::Nothing : LineResult::Line;
    out.append(buf, static_cast<std::size_t>(n));
    if (auto nl = out.find('\n'); nl != std::string::npos) {
      out.resize(nl);
      if (!out.empty() && out.back() == '\r') out.pop_back();
      return out.size() > max ? LineResult::TooLong : LineResult::Line;
    }
    if (out.size() > max) return LineResult::TooLong;
  }
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Removes the socket file only if it is still the one this instance bound: after the
// path was taken over (the file removed, another daemon bound it), it is not ours.
void unlink_own_socket(const std::string& path, dev_t dev, ino_t ino) {
  struct stat st{};
  if (lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return;
  if (st.st_dev != dev || st.st_ino != ino) return;
  unlink(path.c_str());
}

}  // namespace

ControlServer::ControlServer(std::string path, Handler handler)
    : path_(std::move(path)), handler_(std::move(handler)) {
  const sockaddr_un a = address_of(path_);
  struct stat st{};
  if (lstat(path_.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      throw std::runtime_error(fmt::format("'{}' exists and is not a socket", path_));
    // A live daemon answers; a stale socket refuses.
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live =
        probe >= 0 && connect(probe, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
    if (probe >= 0) close(probe);
    if (live)
      throw std::runtime_error(fmt::format("'{}' is in use by another daemon", path_));
    unlink(path_.c_str());
  }
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw sys_error("socket");
  if (bind(listen_fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    auto e = sys_error(fmt::format("cannot bind '{}'", path_));
    close(listen_fd_);
    listen_fd_ = -1;
    throw e;
  }
  if (struct stat bound{}; lstat(path_.c_str(), &bound) == 0) {
    socket_dev_ = bound.st_dev;
    socket_ino_ = bound.st_ino;
  }
  if (listen(listen_fd_, 64) != 0) {
    auto e = sys_error(fmt::format("cannot listen on '{}'", path_));
    close(listen_fd_);
    listen_fd_ = -1;
    unlink_own_socket(path_, socket_dev_, socket_ino_);
    throw e;
  }
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    auto e = sys_error("eventfd");
    stop();
    throw e;
  }
}

ControlServer::~ControlServer() { stop(); }

void ControlServer::start() {
  if (thread_.joinable() || listen_fd_ < 0) return;
  thread_ = std::thread([this] { loop(); });
}

void ControlServer::stop() {
  if (stop_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = write(stop_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  reap(true);
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    unlink_own_socket(path_, socket_dev_, socket_ino_);
  }
  if (stop_fd_ >= 0) {
    close(stop_fd_);
    stop_fd_ = -1;
  }
}

void ControlServer::loop() {
  for (;;) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (p[1].revents != 0) return;
    if ((p[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    // A client that does not read its reply is dropped after as long as it may take to
    // send its line, not held on to while the send blocks.
    const timeval send_limit{kIdleMs / 1000, (kIdleMs % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_limit, sizeof send_limit);
    reap(false);
    if (clients_.size() >= kMaxClients) {
      write_all(fd, fmt::format("{{\"ok\":false,\"error\":\"busy: {} control connections are "
                                "open; try again\"}}\n",
                                kMaxClients));
      close(fd);
      continue;
    }
    auto c = std::make_unique<Client>();
    Client* raw = c.get();
    c->thread = std::thread([this, fd, raw] {
      serve(fd);
      raw->done = true;
    });
    clients_.push_back(std::move(c));
  }
}

void ControlServer::serve(int fd) {
  std::string line;
  switch (read_line(fd, line, kIdleMs, kMaxLine, stop_fd_)) {
    case LineResult::Nothing:
      break;
    case LineResult::TooLong:
      write_all(fd, fmt::format("{{\"ok\":false,\"error\":\"command line longer than {} "
                                "bytes\"}}\n",
                                kMaxLine));
      break;
    case LineResult::Line: {
      std::string reply;
      try {
        reply = handler_(line);
      } catch (const std::exception& e) {
        reply = nlohmann::json({{"ok", false}, {"error", std::string("internal: ") + e.what()}})
                    .dump();
      }
      write_all(fd, reply + "\n");
      break;
    }
  }
  close(fd);
}

// Joins the client threads that finished (all of them when `all`).
void ControlServer::reap(bool all) {
  for (auto it = clients_.begin(); it != clients_.end();) {
    if (all || (*it)->done) {
      (*it)->thread.join();
      it = clients_.erase(it);
    } else {
      ++it;
    }
  }
}

std::string control_request(const std::string& path, const std::string& line, int timeout_ms) {
  const sockaddr_un a = address_of(path);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw sys_error("socket");
  if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    auto e = sys_error(fmt::format("cannot connect to control socket '{}'", path));
    close(fd);
    throw e;
  }
  write_all(fd, line + "\n");
  std::string reply;
  const bool ok = read_line(fd, reply, timeout_ms, std::size_t{1} << 24) == LineResult::Line;
  close(fd);
  if (!ok)
    throw std::runtime_error(fmt::format("no reply from control socket '{}' within {} ms", path,
                                         timeout_ms));
  return reply;
}

}  // namespace disksched
