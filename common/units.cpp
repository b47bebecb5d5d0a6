#include "common/units.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/text.hpp"

namespace disksched {

std::optional<NumberAndSuffix> split_number(std::string_view text) {
  const std::string s(trim(text));
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return NumberAndSuffix{v, lower(trim(end))};
}

std::optional<double> duration_unit_ms(std::string_view suffix) {
  if (suffix == "ns") return 1e-6;
  if (suffix == "us") return 1e-3;
  if (suffix == "ms") return 1.0;
  if (suffix == "s") return 1e3;
  return std::nullopt;
}

std::optional<double> size_unit_bytes(std::string_view suffix) {
  if (suffix.empty() || suffix == "b") return 1.0;
  static constexpr std::string_view prefixes = "kmgt";
  const auto at = prefixes.find(suffix.front());
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = suffix.substr(1);
  if (!rest.empty() && rest != "b" && rest != "ib") return std::nullopt;
  return std::ldexp(1.0, 10 * static_cast<int>(at + 1));
}

std::optional<double> rate_unit_per_s(std::string_view suffix) {
  if (suffix.empty() || suffix == "/s") return 1.0;
  if (suffix == "/min") return 1.0 / 60.0;
  return std::nullopt;
}

double parse_number(std::string_view text) {
  auto n = split_number(text);
  if (!n || !n->suffix.empty()) throw UnitError(fmt::format("'{}' is not a number", text));
  return n->value;
}

std::uint64_t parse_count(std::string_view text) {
  auto n = split_number(text);
  if (!n || !n->suffix.empty() || n->value < 0 || n->value != std::floor(n->value) ||
      n->value > 1.8e19)
    throw UnitError(fmt::format("'{}' is not a whole number >= 0", text));
  return static_cast<std::uint64_t>(n->value);
}

std::string duration_needs_unit(std::string_view text) {
  const std::string t(trim(text));
  return fmt::format("'{}' has no unit: write {}ms (or {}s, {}us, {}ns)", t, t, t, t, t);
}

double parse_duration_ms(std::string_view text) {
  auto n = split_number(text);
  if (n && n->suffix.empty() && n->value != 0) throw UnitError(duration_needs_unit(text));
  const auto unit = n ? (n->suffix.empty() ? std::optional<double>(1.0) : duration_unit_ms(n->suffix))
                      : std::nullopt;
  if (!unit)
    throw UnitError(fmt::format(
        "'{}' is not a duration; expected a number and a unit (ns, us, ms, s), e.g. 50us", text));
  if (n->value < 0) throw UnitError(fmt::format("'{}' is negative; a duration is >= 0", text));
  return n->value * *unit;
}

std::uint64_t parse_size(std::string_view text) {
  auto n = split_number(text);
  const auto unit = n ? size_unit_bytes(n->suffix) : std::nullopt;
  if (!unit)
    throw UnitError(fmt::format(
        "'{}' is not a size; expected bytes with an optional unit b, k, m, g or t, e.g. 8k", text));
  const double bytes = n->value * *unit;
  if (bytes < 0 || bytes != std::floor(bytes) || bytes > 1.8e19)
    throw UnitError(fmt::format("'{}' is not a whole number of bytes >= 0", text));
  return static_cast<std::uint64_t>(bytes);
}

double parse_fraction(std::string_view text) {
  auto n = split_number(text);
  double v = -1;
  if (n && n->suffix.empty()) v = n->value;
  if (n && n->suffix == "%") v = n->value / 100.0;
  if (!(v >= 0 && v <= 1))
    throw UnitError(fmt::format("'{}' is not a fraction; expected 0 to 1 or 0% to 100%, e.g. 0.25",
                                text));
  return v;
}

double parse_rate_per_s(std::string_view text) {
  auto n = split_number(text);
  const auto unit = n ? rate_unit_per_s(n->suffix) : std::nullopt;
  if (!unit || n->value < 0)
    throw UnitError(fmt::format("'{}' is not a rate; expected a number >= 0 per second, "
                                "optionally with /s or /min, e.g. 50/s", text));
  return n->value * *unit;
}

std::string format_duration_ms(double ms) { return fmt::format("{}ms", ms); }

}  // namespace disksched
