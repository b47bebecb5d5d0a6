// Declaring parameters once, beside each algorithm, by field name (so declarations
// stay valid as ParamSpec grows). An instance's canonical spec comes from the
// registry's format_spec(info, params), so spec() never drifts from them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "schedulers/registry.hpp"

namespace disksched::rotational {

inline ParamSpec number_param(std::string name, std::string unit, std::string description,
                              double default_value, double min, double max) {
  ParamSpec p;
  p.name = std::move(name);
  p.unit = std::move(unit);
  p.description = std::move(description);
  p.default_value = default_value;
  p.min = min;
  p.max = max;
  return p;
}

// A count (requests, cylinders): the registry accepts whole numbers only.
inline ParamSpec count_param(std::string name, std::string unit, std::string description,
                             double default_value, double min, double max) {
  ParamSpec p = number_param(std::move(name), std::move(unit), std::move(description),
                             default_value, min, max);
  p.integer = true;
  return p;
}

inline ParamSpec choice_param(std::string name, std::string description,
                              std::vector<std::string> choices, std::string default_choice) {
  ParamSpec p;
  p.name = std::move(name);
  p.description = std::move(description);
  p.choices = std::move(choices);
  p.default_choice = std::move(default_choice);
  return p;
}

}  // namespace disksched::rotational
