#include "common/served_connections.hpp"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace disksched {
namespace {

// A socket's local address as a comparable key: family and path or port. nullopt for
// what is not a bound stream socket.
std::optional<std::string> local_key(int fd) {
  int type = 0;
  socklen_t len = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
    return std::nullopt;
  sockaddr_storage a{};
  len = sizeof a;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return std::nullopt;
  switch (a.ss_family) {
    case AF_UNIX: {
      const auto* u = reinterpret_cast<const sockaddr_un*>(&a);
      const std::size_t off = offsetof(sockaddr_un, sun_path);
      const std::size_t n = len > off ? len - off : 0;
      if (n == 0 || u->sun_path[0] == '\0') return std::nullopt;  // unnamed, or abstract
      return "unix:" + std::string(u->sun_path, strnlen(u->sun_path, n));
    }
    case AF_INET:
      return "inet:" + std::to_string(ntohs(reinterpret_cast<const sockaddr_in*>(&a)->sin_port));
    case AF_INET6:
      return "inet:" + std::to_string(ntohs(reinterpret_cast<const sockaddr_in6*>(&a)->sin6_port));
    default:
      return std::nullopt;
  }
}

bool listening(int fd) {
  int on = 0;
  socklen_t len = sizeof on;
  return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on != 0;
}

std::vector<int> socket_fds() {
  std::vector<int> fds;
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return fds;
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == dirfd(d)) continue;
    struct stat st{};
    if (fstat(static_cast<int>(fd), &st) == 0 && S_ISSOCK(st.st_mode)) fds.push_back(static_cast<int>(fd));
  }
  closedir(d);
  return fds;
}

}  // namespace

std::size_t shut_down_served_connections(const std::vector<std::string>& except) {
  std::vector<std::string> listeners;
  std::vector<std::pair<int, std::string>> connected;
  for (const int fd : socket_fds()) {
    const auto key = local_key(fd);
    if (!key) continue;
    if (std::any_of(except.begin(), except.end(), [&](const std::string& p) { return *key == "unix:" + p; }))
      continue;
    if (listening(fd))
      listeners.push_back(*key);
    else
      connected.emplace_back(fd, *key);
  }
  std::size_t shut = 0;
  for (const auto& [fd, key] : connected)
    if (std::find(listeners.begin(), listeners.end(), key) != listeners.end() &&
        shutdown(fd, SHUT_RD) == 0)
      ++shut;
  return shut;
}

}  // namespace disksched
