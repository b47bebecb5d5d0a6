#include "emulator/device/rpm_error.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "emulator/device/duration.hpp"

namespace disksched {

namespace {

// "0.001" or "0.1%".
double parse_fraction(std::string_view text, std::string_view what) {
  bool percent = text.ends_with('%');
  if (percent) text.remove_suffix(1);
  double v;
  try {
    v = diskemu::parse_number(text);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(
        fmt::format("{} '{}{}' is not a fraction (e.g. 0.001) or a percentage (e.g. 0.1%)", what,
                    text, percent ? "%" : ""));
  }
  return percent ? v / 100.0 : v;
}

}  // namespace

std::string RpmError::to_string() const {
  if (drift_per_s == 0.0) return fmt::format("{}", error);
  return fmt::format("{},drift={}", error, drift_per_s);
}

RpmError parse_rpm_error(std::string_view text) {
  RpmError r;
  auto comma = text.find(',');
  r.error = parse_fraction(text.substr(0, comma), "rpm error");
  if (comma != std::string_view::npos) {
    std::string_view rest = text.substr(comma + 1);
    if (!rest.starts_with("drift="))
      throw std::invalid_argument(
          fmt::format("'{}': after the error only drift=D may follow (e.g. 0.001,drift=1e-5)", text));
    std::string_view d = rest.substr(6);
    if (d.ends_with("/s")) d.remove_suffix(2);
    r.drift_per_s = parse_fraction(d, "drift");
  }
  if (!(r.error > -1.0))
    throw std::invalid_argument(fmt::format("'{}': the error must be above -1 (-100%)", text));
  return r;
}

}  // namespace disksched
