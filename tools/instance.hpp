// Filter instances by name: the systemd unit disksched@NAME.service keeps its sockets in
// its RuntimeDirectory, /run/disksched/NAME ($DISKSCHED_RUN_DIR/NAME when set), so
// `disksched ctl NAME ...` finds NAME's control socket there.
#pragma once

#include <string>

namespace disksched::cli {

// The directory that holds the instances' runtime directories.
std::string instance_run_dir();

// `target` as the ctl command takes it: a path (it has a '/', or names a file here)
// stays as it is; anything else is an instance name, resolved to its control socket.
// Throws std::runtime_error when the instance has no control socket, saying where it
// looked and how to check the service.
std::string control_socket_for(const std::string& target);

}  // namespace disksched::cli
