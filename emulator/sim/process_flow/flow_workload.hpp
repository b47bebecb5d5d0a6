// The process-flow workload language, in the project's spec style (common/spec.hpp):
//
//   flow[:key=value,...]   a system running `procs` compressions at once (GP sec. 5.2)
//   gp93[:key=value,...]   GP's compression workload: the same keys, GP's values
//
// Keys (units as everywhere: sizes k/m/g, durations ns/us/ms/s, fractions 0.5 or 50%):
//   procs=2        processes, each compressing its own file into a new one
//   file=34.72m    each input file's size (rounded up to whole blocks)
//   ratio=0.4704   output size / input size
//   cpu=24ms       mean CPU time per input block, jitter=0.5 its spread (uniform +-50%)
//   block=4k       file system block (one request each)
//   cache=8m       buffer cache size; daemon=1s its flush daemon's period, share=60 the
//                  daemon walks 1/share of the cache per wake-up
//   spread=0.5     the files lie evenly spaced over this fraction of the disk, in the
//                  order input 1..N, output 1..N
//   buffer=64k     the drive's read buffer (0: none)
//   cpus=1, switch=62us, iointr=380us, clock=10ms, clockintr=92us, quantum=100ms,
//   preempt=on|off the system (system.hpp)
//   seed=1         the CPU-time draws
// Every default is GP's value where GP give one (Table 2, sec. 5.2); the rest are our
// choices, documented in bench/experiments/RESULTS.md (GP93).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/spec.hpp"
#include "emulator/sim/process_flow/process_flow.hpp"

namespace disksched::flow {

class FlowWorkload {
 public:
  // Throws SpecError naming the bad key or value and what is valid.
  static FlowWorkload parse(std::string_view spec);
  static const std::vector<SpecParam>& params();

  // The canonical spec, every key written.
  std::string spec() const;
  double number(const std::string& key) const { return values_.number(key); }
  const std::string& choice(const std::string& key) const { return values_.choice(key); }

  // The system, the files laid out on a device of `capacity_bytes`, and the programs.
  FlowConfig config(std::uint64_t capacity_bytes) const;
  std::vector<std::unique_ptr<Program>> programs() const;
  std::uint64_t in_blocks() const;

 private:
  std::string name_;
  SpecValues values_;
};

}  // namespace disksched::flow
