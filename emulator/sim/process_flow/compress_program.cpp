#include "emulator/sim/process_flow/compress_program.hpp"

#include <cmath>

namespace disksched::flow {

std::uint64_t compress_out_blocks(std::uint64_t in_blocks, double ratio) {
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(in_blocks) * ratio - 1e-9));
}

CompressProgram::CompressProgram(CompressParams p)
    : p_(p), rng_(p.seed), out_total_(compress_out_blocks(p.in_blocks, p.ratio)) {}

Step CompressProgram::next() {
  for (;;) {
    switch (phase_) {
      case Phase::Create:
        phase_ = p_.in_blocks > 0 ? Phase::Read : Phase::Exit;
        return Step::create(p_.out_file);
      case Phase::Read:
        phase_ = Phase::Compute;
        return Step::read(p_.in_file, in_);
      case Phase::Compute: {
        phase_ = Phase::Write;
        ++in_;
        owed_ += p_.ratio;
        // A uniform draw in [0, 1) from the engine's 53 high bits (no library distribution:
        // those differ between standard libraries).
        const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
        return Step::compute(p_.cpu_ms * (1.0 + p_.jitter * (2.0 * u - 1.0)));
      }
      case Phase::Write:
        if (out_ < out_total_ && (owed_ >= 1.0 || (in_ == p_.in_blocks && owed_ > 1e-9))) {
          owed_ -= 1.0;
          return Step::write(p_.out_file, out_++);
        }
        phase_ = in_ < p_.in_blocks ? Phase::Read : Phase::Exit;
        continue;
      case Phase::Exit:
        return Step::exit();
    }
  }
}

}  // namespace disksched::flow
