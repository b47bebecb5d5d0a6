// The connections an nbdkit server accepted, found from inside it. nbdkit 1.32 stops only
// when every connection ends, and a worker waiting for a client's next request sits in
// read() on the socket, which its quit flag does not interrupt: a client that stays
// connected and idle (nbdfuse, the kernel's nbd client) keeps the server running after
// SIGTERM. Shutting the reading side of each accepted socket gives those workers the
// end of the stream, as if the client had disconnected cleanly: requests in flight are
// still answered (the writing side stays open), then nbdkit closes the connection.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace disksched {

// Shuts the reading side (shutdown SHUT_RD) of every connected stream socket of this
// process whose local address is that of one of its listening sockets, except sockets
// listening at (or accepted on) a path in `except` (the filter's own control socket).
// Returns how many it shut.
std::size_t shut_down_served_connections(const std::vector<std::string>& except = {});

}  // namespace disksched
