// A host as busy as this project's 2-core machine at load 20 probed without real-time
// priority: a third of the completions seen 0.2-8 ms late (never flagged), every tenth
// request reaching the device late, and every probe flagged as preempted.
#pragma once

#include <cstdint>

#include "tools/extract/virtual_target.hpp"

namespace disksched::testing {

inline extract::HostNoise busy_host(std::uint64_t seed) {
  return extract::HostNoise{.issue_jitter_ms = 0.01,
                            .completion_jitter_ms = 0.01,
                            .preemption_rate = 0.1,
                            .preemption_flagged = 0.0,
                            .late_rate = 0.33,
                            .flag_rate = 1.0,
                            .seed = seed};
}

}  // namespace disksched::testing
