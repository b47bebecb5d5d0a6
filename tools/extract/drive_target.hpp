// What the drive steps (drive_steps.hpp) need from a target beyond one probe at a time:
// several commands in flight (to see the drive's own queue) and a FLUSH (to time the
// write cache's destage). A target that can do them implements this beside ProbeTarget;
// the drive steps find it with dynamic_cast and say what they could not measure without.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

// One command of a closed loop: `count` sectors at `lba`.
struct Command {
  Op op = Op::Read;
  std::uint64_t lba = 0;
  std::uint32_t count = 1;
  bool fua = false;  // a write that must reach the media before it completes
};

class DriveTarget {
 public:
  virtual ~DriveTarget() = default;
  // Runs `cmds` as a closed loop with `depth` in flight: the first `depth` are issued at
  // once, and each completion issues the next. Returns each command's issue and
  // completion times, in the order of `cmds`.
  virtual std::vector<ProbeResult> closed_loop(std::span<const Command> cmds, unsigned depth) = 0;
  // A FLUSH (SYNCHRONIZE CACHE): completes once every acknowledged write is on the media.
  virtual ProbeResult flush() = 0;
};

}  // namespace disksched::extract
