#include "emulator/device/duration.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace disksched::diskemu {

double parse_number(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
    throw std::invalid_argument(fmt::format("'{}' is not a number", s));
  return v;
}

Millis parse_duration_ms(std::string_view text) {
  if (text == "0") return 0.0;   // zero needs no unit
  struct Unit { std::string_view suffix; double ms; };
  // Longest suffixes first so "ms" is not read as "s".
  static constexpr Unit units[] = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1.0}, {"s", 1e3}};
  for (const auto& u : units) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      std::string_view number = text.substr(0, text.size() - u.suffix.size());
      double v;
      try {
        v = parse_number(number);
      } catch (const std::invalid_argument&) {
        break;
      }
      return v * u.ms;
    }
  }
  throw std::invalid_argument(
      fmt::format("'{}' is not a duration; expected a number and a unit (ns, us, ms, s), e.g. 50us",
                  text));
}

}  // namespace disksched::diskemu
