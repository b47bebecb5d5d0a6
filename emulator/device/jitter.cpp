#include "emulator/device/jitter.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "common/units.hpp"

namespace disksched {

std::string JitterSpec::to_string() const {
  switch (kind) {
    case Kind::None: return "none";
    case Kind::Exponential: return fmt::format("exp:{}ms", param_ms);
    case Kind::Uniform: return fmt::format("uniform:{}ms", param_ms);
  }
  return "?";
}

JitterSpec parse_jitter(std::string_view text) {
  JitterSpec spec;
  if (text == "none" || text == "0") return spec;
  auto colon = text.find(':');
  std::string_view kind = text.substr(0, colon);
  if (colon == std::string_view::npos || (kind != "exp" && kind != "uniform"))
    throw std::invalid_argument(fmt::format(
        "'{}' is not a jitter distribution; expected none, exp:MEAN or uniform:MAX "
        "(e.g. exp:0.05ms)", text));
  spec.kind = kind == "exp" ? JitterSpec::Kind::Exponential : JitterSpec::Kind::Uniform;
  spec.param_ms = parse_duration_ms(text.substr(colon + 1));  // refuses a negative one
  if (spec.param_ms == 0.0) spec.kind = JitterSpec::Kind::None;
  return spec;
}

Jitter::Jitter(JitterSpec spec, std::uint64_t seed) : spec_(spec), rng_(seed) {}

Millis Jitter::draw() {
  switch (spec_.kind) {
    case JitterSpec::Kind::None:
      return 0.0;
    case JitterSpec::Kind::Exponential:
      return std::exponential_distribution<double>(1.0 / spec_.param_ms)(rng_);
    case JitterSpec::Kind::Uniform:
      return std::uniform_real_distribution<double>(0.0, spec_.param_ms)(rng_);
  }
  return 0.0;
}

}  // namespace disksched
