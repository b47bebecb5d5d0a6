// Durations as users write them in configuration: "100ms", "0.5s", "250us", "1500ns";
// a bare number is milliseconds (as in scheduler specs).
#pragma once

#include <optional>
#include <string_view>

#include "predictor/device_model.hpp"

namespace disksched {

// The duration in milliseconds, or nullopt when `text` is not a finite, non-negative
// number with an optional unit ns, us, ms or s.
std::optional<Millis> parse_duration_ms(std::string_view text);

}  // namespace disksched
