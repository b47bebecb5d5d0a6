// mixed: a foreground beside background work, each request with its class (GP sec. 3),
// as a closed loop: the experiment of issue 31 in the simulator.
//   fg clients (time-critical): random reads of fg-size, each client one outstanding,
//     fg-think between a completion and the next (QD1 random 4 KiB reads by default);
//   bg clients (time-noncritical): a scrub, sequential reads of bg-size from the start of
//     the device through one shared cursor, so bg is the scrub's depth;
//   writers (time-noncritical): random writes of writer-size, writer-think apart.
// Clients are numbered foreground first, then scrub, then writers.
#pragma once

#include <cstdint>
#include <memory>

#include "bench/experiments/workload/workload.hpp"

namespace disksched {

// The "mixed" workload's parameters (its spec keys).
const std::vector<SpecParam>& mixed_params();

std::unique_ptr<ClosedStream> make_mixed_stream(const DeviceExtent& dev, const Workload& w,
                                                std::uint64_t seed);

}  // namespace disksched
