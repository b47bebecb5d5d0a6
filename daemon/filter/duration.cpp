#include "daemon/filter/duration.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace disksched {

std::optional<Millis> parse_duration_ms(std::string_view text) {
  std::string s(text);
  const char* begin = s.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v) || v < 0) return std::nullopt;
  const std::string_view unit(end);
  if (unit.empty() || unit == "ms") return v;
  if (unit == "s") return v * 1e3;
  if (unit == "us") return v / 1e3;
  if (unit == "ns") return v / 1e6;
  return std::nullopt;
}

}  // namespace disksched
