// A process-flow run's metrics as text, one `name value` line each (GP Table 3's rows).
#pragma once

#include <string>

#include "emulator/sim/process_flow/flow_result.hpp"

namespace disksched::flow {

std::string report(const FlowResult& r);

}  // namespace disksched::flow
