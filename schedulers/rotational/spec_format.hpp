// Writes an instance's canonical spec ("asatf:w=30,form=jw") from its AlgorithmInfo
// and the validated Params, in the declared parameter order, so spec() never drifts
// from the declarations.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "schedulers/registry.hpp"

namespace disksched::rotational {

inline std::string canonical_spec(const AlgorithmInfo& info, const Params& p) {
  std::string s = info.name;
  char sep = ':';
  for (const auto& ps : info.params) {
    if (ps.choices.empty())
      s += fmt::format("{}{}={}", sep, ps.name, p.number(ps.name));
    else
      s += fmt::format("{}{}={}", sep, ps.name, p.choice(ps.name));
    sep = ',';
  }
  return s;
}

// A parameter that counts something (requests, cylinders): must be a whole number.
inline std::size_t whole_param(const Params& p, const std::string& algorithm,
                               const std::string& name) {
  const double v = p.number(name);
  if (v != std::floor(v))
    throw SpecError(fmt::format("{}: {}={} must be a whole number", algorithm, name, v));
  return static_cast<std::size_t>(v);
}

// Parameter declarations built by field name, so they stay valid if ParamSpec grows.
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

inline ParamSpec choice_param(std::string name, std::string description,
                              std::vector<std::string> choices, std::string default_choice) {
  ParamSpec p;
  p.name = std::move(name);
  p.description = std::move(description);
  p.choices = std::move(choices);
  p.default_choice = std::move(default_choice);
  return p;
}

// The parameters' defaults, for building an instance without a spec string.
inline Params default_params(const AlgorithmInfo& info) {
  Params p;
  for (const auto& ps : info.params) {
    if (ps.choices.empty())
      p.numbers_[ps.name] = ps.default_value;
    else
      p.choices_[ps.name] = ps.default_choice;
  }
  return p;
}

}  // namespace disksched::rotational
