// Random extra service time, for testing how extraction and prediction cope with a
// device that is not perfectly repeatable.
//
//   jitter=none            no extra time (the default)
//   jitter=exp:MEAN        exponentially distributed, mean MEAN (e.g. exp:0.05ms)
//   jitter=uniform:MAX     uniformly distributed on [0, MAX] (e.g. uniform:0.1ms)
//
// Durations are device time (scaled by timescale like everything else) and need a unit:
// ns, us, ms or s. The extra time is added after the media transfer, as if the controller
// were slow to report completion; the platter keeps turning meanwhile, so the next
// request starts from a later angle. Samples come from a 64-bit Mersenne Twister seeded
// with jitter-seed (default 1), so a run is reproducible.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "predictor/device_model.hpp"

namespace disksched {

struct JitterSpec {
  enum class Kind { None, Exponential, Uniform };
  Kind kind = Kind::None;
  Millis param_ms = 0.0;   // the mean (exp) or the maximum (uniform)

  std::string to_string() const;
};

// Throws std::invalid_argument naming what was wrong.
JitterSpec parse_jitter(std::string_view text);

class Jitter {
 public:
  Jitter(JitterSpec spec, std::uint64_t seed);
  const JitterSpec& spec() const { return spec_; }
  // The next extra service time in device ms (>= 0). None (the usual case) is decided
  // here, without a call per request.
  Millis sample() { return spec_.kind == JitterSpec::Kind::None ? 0.0 : draw(); }

 private:
  Millis draw();

  JitterSpec spec_;
  std::mt19937_64 rng_;
};

}  // namespace disksched
