// Quantities as users write them in specs, nbdkit keys and options: durations, sizes,
// fractions and rates. One rule for each, everywhere:
//   duration  a number and a unit: ns, us, ms or s ("50us", "0.2ms", "1s"); 0 needs no
//             unit. A bare number is refused: it was milliseconds in some places and an
//             error in others, and seconds in nbdkit's own delay keys.
//   size      bytes: a whole number with an optional b, k, m, g or t (KiB, MiB, ... also
//             kb/kib etc.; binary multiples, like nbdkit's sizes).
//   fraction  a number in [0, 1] or a percentage ("0.25", "25%").
//   rate      per second: a bare number, or with "/s" or "/min" ("50", "50/s", "3000/min").
// Errors are UnitError (std::invalid_argument) quoting the text and saying how to write it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace disksched {

class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A number and what follows it: "0.5 s" -> {0.5, "s"} (suffix trimmed, lower case).
// nullopt when `text` does not start with a finite number.
struct NumberAndSuffix {
  double value;
  std::string suffix;
};
std::optional<NumberAndSuffix> split_number(std::string_view text);

// Milliseconds per unit for ns, us, ms, s; nullopt for anything else.
std::optional<double> duration_unit_ms(std::string_view suffix);
// Bytes per unit for "", b, k, kb, kib, m, ..., t; nullopt for anything else.
std::optional<double> size_unit_bytes(std::string_view suffix);
// Per-second factor for "", /s, /min; nullopt for anything else.
std::optional<double> rate_unit_per_s(std::string_view suffix);

// The whole text is one finite number (strtod syntax).
double parse_number(std::string_view text);
// A non-negative whole number.
std::uint64_t parse_count(std::string_view text);
// A duration >= 0, in milliseconds.
double parse_duration_ms(std::string_view text);
// A size in bytes.
std::uint64_t parse_size(std::string_view text);
// A fraction in [0, 1].
double parse_fraction(std::string_view text);
// A rate >= 0 per second.
double parse_rate_per_s(std::string_view text);

// "500ms", "0.25ms": how a duration is written back so parse_duration_ms reads it.
std::string format_duration_ms(double ms);

// The message for a bare number where a duration was expected: "write 5ms (...)".
std::string duration_needs_unit(std::string_view text);

}  // namespace disksched
