// The smallest valid profile as JSON, and the error a profile's JSON is refused with: the
// tests of the profile format and of its drive blocks start from these.
#pragma once

#include <string>

#include "predictor/profile.hpp"

namespace disksched::testing {

inline nlohmann::json minimal() {
  return nlohmann::json::parse(R"({"version": 1, "heads": 2, "rpm": 7200,
    "zones": [{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 50}],
    "seek": {"form": "two-piece", "short": {"a": 1, "b": 0.1}, "boundary": 5,
             "long": {"a": 1.5, "b": 0.01}}})");
}

// The message profile_from_json refuses `j` with; "" when it accepts it.
inline std::string error_of(const nlohmann::json& j) {
  try {
    profile_from_json(j, "t.json");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace disksched::testing
