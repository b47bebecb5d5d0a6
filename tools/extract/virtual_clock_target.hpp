// What the simulated targets share: a virtual clock, which a wait moves on (never back)
// at once, so that probes are timed exactly and take no real time.
#pragma once

#include <algorithm>

#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

class VirtualClockTarget : public ProbeTarget {
 public:
  Millis now_ms() override { return now_; }
  void wait_until(Millis t_ms) override { now_ = std::max(now_, t_ms); }

 protected:
  explicit VirtualClockTarget(Millis start_ms) : now_(start_ms) {}
  Millis now_;
};

}  // namespace disksched::extract
