// shut_down_served_connections: the reading side of each connection accepted on one of
// this process's listening sockets is shut (a blocked read sees the end of the stream),
// and nothing else: not the client's own end, not a socket at an excepted path.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "common/served_connections.hpp"

using namespace disksched;

namespace {

struct Listener {
  std::string path;
  int fd = -1;
  explicit Listener(const std::string& name)
      : path("/tmp/disksched-served-" + std::to_string(getpid()) + "-" + name + ".sock") {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    unlink(path.c_str());
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(fd, 4) == 0);
  }
  ~Listener() {
    close(fd);
    unlink(path.c_str());
  }
  // A connected pair: the client's end and the accepted end.
  std::pair<int, int> connection() const {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    const int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(connect(c, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
    const int s = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    REQUIRE(s >= 0);
    return {c, s};
  }
};

// Whether a read on `fd` would return at once with the end of the stream.
bool at_end(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 0) != 1) return false;
  char b;
  return recv(fd, &b, 1, MSG_DONTWAIT) == 0;
}

}  // namespace

TEST_CASE("served connections: accepted ends are shut for reading, nothing else",
          "[common][served]") {
  const Listener served("nbd"), control("control");
  const auto [client, accepted] = served.connection();
  const auto [ctl_client, ctl_accepted] = control.connection();
  REQUIRE_FALSE(at_end(accepted));

  REQUIRE(shut_down_served_connections({control.path}) == 1);
  REQUIRE(at_end(accepted));           // the worker's read ends
  REQUIRE_FALSE(at_end(client));       // the client's own end is not touched ...
  REQUIRE(send(accepted, "r", 1, MSG_NOSIGNAL) == 1);  // ... and still gets replies
  char b = 0;
  REQUIRE(recv(client, &b, 1, 0) == 1);
  REQUIRE(b == 'r');
  REQUIRE_FALSE(at_end(ctl_accepted)); // the excepted path's connection is not touched
  for (int fd : {client, accepted, ctl_client, ctl_accepted}) close(fd);
}
