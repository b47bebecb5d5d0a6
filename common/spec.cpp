#include "common/spec.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/text.hpp"
#include "common/units.hpp"

namespace disksched {
namespace {

bool in_range(const SpecParam& p, double v) { return v >= p.min && v <= p.max; }

std::string format_number(const SpecParam& p, double v) {
  if (p.unit == "ms") return format_duration_ms(v);
  return fmt::format("{}", v);
}

// A number in `p`'s unit, checked against its range.
double parse_number_param(std::string_view owner, const SpecParam& p, std::string_view text) {
  auto n = split_number(text);
  if (!n)
    throw SpecError(fmt::format("{}: value '{}' for '{}' is not a number; {}", owner, text, p.name,
                                describe_param(p)));
  double v = n->value;
  const std::string& suffix = n->suffix;
  std::optional<double> factor;
  std::string expected;
  if (p.unit == "ms") {
    factor = suffix.empty() && v == 0 ? std::optional<double>(1.0) : duration_unit_ms(suffix);
    if (suffix.empty() && v != 0)
      throw SpecError(fmt::format("{}: {}={}: {}", owner, p.name, text, duration_needs_unit(text)));
    expected = "a duration (ns, us, ms, s)";
  } else if (p.unit == "bytes") {
    factor = size_unit_bytes(suffix);
    expected = "bytes (b, k, m, g, t)";
  } else if (p.unit == "fraction") {
    factor = suffix.empty() ? std::optional<double>(1.0)
             : suffix == "%" ? std::optional<double>(0.01) : std::nullopt;
    expected = "a fraction (0.25 or 25%)";
  } else {
    factor = suffix.empty() || suffix == lower(p.unit) ? std::optional<double>(1.0) : std::nullopt;
    expected = p.unit.empty() ? "plain numbers" : p.unit;
  }
  if (!factor)
    throw SpecError(fmt::format("{}: unit '{}' in '{}={}' is not valid; {} is in {}", owner, suffix,
                                p.name, text, p.name, expected));
  v *= *factor;
  if ((p.integer || p.unit == "bytes") && v != std::floor(v))
    throw SpecError(fmt::format("{}: {}={} is not a whole number; {}", owner, p.name, text,
                                describe_param(p)));
  if (!in_range(p, v))
    throw SpecError(fmt::format("{}: {}={} is out of range; {}", owner, p.name, text,
                                describe_param(p)));
  return v;
}

// "120x1200": two numbers in the parameter's unit, each in [min, max].
std::pair<double, double> parse_pair(std::string_view owner, const SpecParam& p,
                                     std::string_view text) {
  const auto x = lower(text).find('x');
  if (x == std::string::npos || x == 0 || x + 1 == text.size())
    throw SpecError(fmt::format("{}: value '{}' for '{}' is not of the form AxB; {}", owner, text,
                                p.name, describe_param(p)));
  try {
    return {parse_number_param(owner, p, trim(text.substr(0, x))),
            parse_number_param(owner, p, trim(text.substr(x + 1)))};
  } catch (const SpecError&) {
    throw SpecError(fmt::format("{}: {}={} is not valid; {}", owner, p.name, text,
                                describe_param(p)));
  }
}

}  // namespace

SpecParam number_param(std::string name, std::string unit, std::string description,
                       double default_value, double min, double max) {
  SpecParam p;
  p.name = std::move(name);
  p.unit = std::move(unit);
  p.description = std::move(description);
  p.default_value = default_value;
  p.min = min;
  p.max = max;
  return p;
}

SpecParam count_param(std::string name, std::string unit, std::string description,
                      double default_value, double min, double max) {
  SpecParam p = number_param(std::move(name), std::move(unit), std::move(description),
                             default_value, min, max);
  p.integer = true;
  return p;
}

SpecParam choice_param(std::string name, std::string description,
                       std::vector<std::string> choices, std::string default_choice) {
  SpecParam p;
  p.name = std::move(name);
  p.description = std::move(description);
  p.choices = std::move(choices);
  p.default_choice = std::move(default_choice);
  return p;
}

std::pair<std::string, std::string> split_spec_name(std::string_view spec) {
  spec = trim(spec);
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) return {std::string(spec), ""};
  return {std::string(trim(spec.substr(0, colon))), std::string(trim(spec.substr(colon + 1)))};
}

SpecValues spec_defaults(const std::vector<SpecParam>& params) {
  SpecValues v;
  for (const auto& p : params) {
    if (p.pair)
      v.pairs_[p.name] = {p.default_value, p.default_value2};
    else if (p.choices.empty())
      v.numbers_[p.name] = p.default_value;
    else
      v.choices_[p.name] = p.default_choice;
  }
  return v;
}

bool spec_default_valid(const SpecParam& p) {
  if (!p.choices.empty())
    return std::find(p.choices.begin(), p.choices.end(), p.default_choice) != p.choices.end();
  return in_range(p, p.default_value) && (!p.pair || in_range(p, p.default_value2)) &&
         (!p.integer || p.default_value == std::floor(p.default_value));
}

void parse_spec_args(std::string_view owner, const std::vector<SpecParam>& params,
                     std::string_view args, SpecValues& values) {
  parse_spec_items(owner, params, split(args, ','), values);
}

void parse_spec_items(std::string_view owner, const std::vector<SpecParam>& params,
                      const std::vector<std::string_view>& items, SpecValues& values) {
  std::set<std::string> seen;
  for (const auto raw : items) {
    const std::string_view item = trim(raw);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      throw SpecError(fmt::format("{}: parameter '{}' has no value (write key=value); {}", owner,
                                  item, valid_params(owner, params)));
    const std::string key = lower(trim(item.substr(0, eq)));
    const std::string_view value = trim(item.substr(eq + 1));
    auto it = std::find_if(params.begin(), params.end(),
                           [&](const SpecParam& p) { return lower(p.name) == key; });
    if (it == params.end())
      throw SpecError(fmt::format("{}: unknown parameter '{}'; {}", owner, key,
                                  valid_params(owner, params)));
    if (!seen.insert(it->name).second)
      throw SpecError(fmt::format("{}: parameter '{}' given twice", owner, it->name));
    if (!it->choices.empty()) {
      const std::string v = lower(value);
      auto c = std::find(it->choices.begin(), it->choices.end(), v);
      if (c == it->choices.end())
        throw SpecError(fmt::format("{}: '{}' is not a valid value for '{}'; {}", owner, value,
                                    it->name, describe_param(*it)));
      values.choices_[it->name] = *c;
    } else if (it->pair) {
      values.pairs_[it->name] = parse_pair(owner, *it, value);
    } else {
      values.numbers_[it->name] = parse_number_param(owner, *it, value);
    }
  }
}

std::string describe_param(const SpecParam& p) {
  if (p.pair)
    return fmt::format("{}=AxB with A and B in [{}, {}] {} (default {})", p.name, p.min, p.max,
                       p.unit, format_param_default(p));
  if (!p.choices.empty()) {
    std::string c;
    for (const auto& x : p.choices) c += (c.empty() ? "" : "|") + x;
    return fmt::format("{}={} (default {})", p.name, c, p.default_choice);
  }
  return fmt::format("{} in [{}, {}] {}{}(default {})", p.name, p.min, p.max, p.unit,
                     p.unit.empty() ? "" : " ", format_param_default(p));
}

std::string valid_params(std::string_view owner, const std::vector<SpecParam>& params) {
  std::string s;
  for (const auto& p : params)
    if (!p.hidden) s += (s.empty() ? "" : "; ") + describe_param(p);
  if (s.empty()) return fmt::format("'{}' takes no parameters", owner);
  return "valid: " + s;
}

std::string format_param_default(const SpecParam& p) {
  if (p.pair) return fmt::format("{}x{}", format_number(p, p.default_value),
                                 format_number(p, p.default_value2));
  if (!p.choices.empty()) return p.default_choice;
  return format_number(p, p.default_value);
}

std::string format_param_value(const SpecParam& p, const SpecValues& values) {
  if (p.pair) {
    auto [x, y] = values.pair(p.name);
    return fmt::format("{}x{}", format_number(p, x), format_number(p, y));
  }
  if (!p.choices.empty()) return values.choice(p.name);
  return format_number(p, values.number(p.name));
}

std::string format_spec(std::string_view name, const std::vector<SpecParam>& params,
                        const SpecValues& values) {
  std::string s(name);
  char sep = ':';
  for (const auto& p : params) {
    const std::string v = format_param_value(p, values);
    if (p.written_when_set && v == format_param_default(p)) continue;
    s += fmt::format("{}{}={}", sep, p.name, v);
    sep = ',';
  }
  return s;
}

}  // namespace disksched
