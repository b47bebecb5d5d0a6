#include "daemon/filter/control.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fmt/format.h>

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

// Reads until '\n' or EOF, at most 64 KiB, waiting at most timeout_ms for each part.
bool read_line(int fd, std::string& out, int timeout_ms) {
  char buf[4096];
  while (out.size() < 65536) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, timeout_ms);
    if (r <= 0) return false;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return !out.empty();
    out.append(buf, static_cast<std::size_t>(n));
    if (auto nl = out.find('\n'); nl != std::string::npos) {
      out.resize(nl);
      return true;
    }
  }
  return false;
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
  if (listen(listen_fd_, 8) != 0) {
    auto e = sys_error(fmt::format("cannot listen on '{}'", path_));
    close(listen_fd_);
    listen_fd_ = -1;
    unlink(path_.c_str());
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
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    unlink(path_.c_str());
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
    std::string line;
    if (read_line(fd, line, 2000)) {
      std::string reply;
      try {
        reply = handler_(line);
      } catch (const std::exception& e) {
        reply = fmt::format("{{\"ok\":false,\"error\":\"internal: {}\"}}", e.what());
      }
      write_all(fd, reply + "\n");
    }
    close(fd);
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
  const bool ok = read_line(fd, reply, timeout_ms);
  close(fd);
  if (!ok)
    throw std::runtime_error(fmt::format("no reply from control socket '{}' within {} ms", path,
                                         timeout_ms));
  return reply;
}

}  // namespace disksched
