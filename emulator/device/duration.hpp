// Durations in configuration values: a number and a unit, e.g. 50us, 0.2ms, 1s.
#pragma once

#include <string_view>

#include "predictor/device_model.hpp"

namespace disksched::diskemu {

// Parses "<number><unit>" with unit ns, us, ms or s, into milliseconds. A bare number is
// rejected (the unit is not guessable), except 0. Throws std::invalid_argument with a message that
// quotes the text.
Millis parse_duration_ms(std::string_view text);

// Parses a real number (strtod syntax, the whole text). Throws std::invalid_argument.
double parse_number(std::string_view text);

}  // namespace disksched::diskemu
