// What the control socket's commands do (see control.hpp for the protocol).
#pragma once

#include <functional>
#include <string>

#include "daemon/filter/dispatcher.hpp"

namespace disksched {

// Answers one command line with one line of JSON. `dispatcher` may be null before the
// first client opened the device; `configured_scheduler` is then what `show` reports,
// and a `switch` is remembered there for when the device opens. `metrics` renders the
// Prometheus text for the `metrics` command ({"ok":true,"metrics":TEXT}).
std::string handle_control_command(const std::string& line, Dispatcher* dispatcher,
                                   std::string& configured_scheduler,
                                   const std::string& classes,
                                   const std::function<std::string()>& metrics = {});

}  // namespace disksched
