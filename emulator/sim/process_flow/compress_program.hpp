// GP's traced application (sec. 5.2): compress one file into another. It creates its
// output file, then reads the input block by block, computes on each block, and writes
// an output block each time `ratio` input blocks' worth of output has built up (the
// last, partial one at the end).
#pragma once

#include <cstdint>
#include <random>

#include "emulator/sim/process_flow/program.hpp"

namespace disksched::flow {

struct CompressParams {
  std::uint32_t in_file = 0, out_file = 1;
  std::uint64_t in_blocks = 0;
  double ratio = 0.5;        // output blocks per input block
  Millis cpu_ms = 20.0;      // mean CPU per input block
  double jitter = 0.0;       // each block's CPU is uniform in cpu_ms * [1 - jitter, 1 + jitter]
  std::uint64_t seed = 1;
};

// Output blocks a compression of `in_blocks` writes.
std::uint64_t compress_out_blocks(std::uint64_t in_blocks, double ratio);

class CompressProgram final : public Program {
 public:
  explicit CompressProgram(CompressParams p);
  Step next() override;

 private:
  CompressParams p_;
  std::mt19937_64 rng_;   // the engine is specified exactly, so runs repeat everywhere
  enum class Phase { Create, Read, Compute, Write, Exit } phase_ = Phase::Create;
  std::uint64_t in_ = 0, out_ = 0, out_total_ = 0;
  double owed_ = 0.0;     // output blocks built up and not yet written
};

}  // namespace disksched::flow
