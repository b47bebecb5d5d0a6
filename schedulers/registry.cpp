#include "schedulers/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace disksched {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string describe_param(const ParamSpec& p) {
  if (p.pair) {
    return fmt::format("{}=AxB with A and B in [{}, {}] {} (default {})", p.name, p.min, p.max,
                       p.unit, format_param_default(p));
  }
  if (!p.choices.empty()) {
    std::string c;
    for (const auto& x : p.choices) c += (c.empty() ? "" : "|") + x;
    return fmt::format("{}={} (default {})", p.name, c, p.default_choice);
  }
  return fmt::format("{} in [{}, {}] {}{}(default {})", p.name, p.min, p.max, p.unit,
                     p.unit.empty() ? "" : " ", p.default_value);
}

std::string valid_keys(const AlgorithmInfo& a) {
  if (a.params.empty()) return fmt::format("'{}' takes no parameters", a.name);
  std::string s;
  for (const auto& p : a.params) s += (s.empty() ? "" : "; ") + describe_param(p);
  return "valid: " + s;
}

// Parses a number with an optional unit suffix. Time parameters (unit "ms") accept
// "500", "500ms", "0.5s", "500000us"; other units accept a bare number or their own
// unit name as suffix.
double parse_value(const AlgorithmInfo& a, const ParamSpec& p, const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v)) {
    throw SpecError(fmt::format("{}: value '{}' for '{}' is not a number; {}", a.name, text,
                                p.name, describe_param(p)));
  }
  std::string suffix = lower(trim(end));
  if (!suffix.empty()) {
    if (p.unit == "ms" && suffix == "ms") {
    } else if (p.unit == "ms" && suffix == "s") {
      v *= 1000.0;
    } else if (p.unit == "ms" && suffix == "us") {
      v /= 1000.0;
    } else if (suffix == lower(p.unit)) {
    } else {
      throw SpecError(fmt::format("{}: unit '{}' in '{}={}' is not valid; {} is in {}", a.name,
                                  suffix, p.name, text, p.name,
                                  p.unit.empty() ? "plain numbers" : p.unit));
    }
  }
  if (p.integer && v != std::floor(v)) {
    throw SpecError(fmt::format("{}: {}={} is not a whole number; {}", a.name, p.name, text,
                                describe_param(p)));
  }
  if (v < p.min || v > p.max) {
    throw SpecError(fmt::format("{}: {}={} is out of range; {}", a.name, p.name, text,
                                describe_param(p)));
  }
  return v;
}

// "120x1200": two numbers in the parameter's unit, each in [min, max].
std::pair<double, double> parse_pair(const AlgorithmInfo& a, const ParamSpec& p,
                                     const std::string& text) {
  auto x = lower(text).find('x');
  if (x == std::string::npos || x == 0 || x + 1 == text.size())
    throw SpecError(fmt::format("{}: value '{}' for '{}' is not of the form AxB; {}", a.name, text,
                                p.name, describe_param(p)));
  try {
    return {parse_value(a, p, trim(text.substr(0, x))), parse_value(a, p, trim(text.substr(x + 1)))};
  } catch (const SpecError&) {
    throw SpecError(fmt::format("{}: {}={} is not valid; {}", a.name, p.name, text,
                                describe_param(p)));
  }
}

bool in_range(const ParamSpec& p, double v) { return v >= p.min && v <= p.max; }

}  // namespace

std::string format_param_default(const ParamSpec& p) {
  if (p.pair) return fmt::format("{}x{}", p.default_value, p.default_value2);
  if (!p.choices.empty()) return p.default_choice;
  return fmt::format("{}", p.default_value);
}

std::string format_spec(const AlgorithmInfo& a, const Params& params) {
  std::string s = a.name;
  char sep = ':';
  for (const auto& p : a.params) {
    std::string v;
    if (p.pair) {
      auto [x, y] = params.pair(p.name);
      v = fmt::format("{}x{}", x, y);
    } else if (!p.choices.empty()) {
      v = params.choice(p.name);
    } else {
      v = fmt::format("{}", params.number(p.name));
    }
    s += fmt::format("{}{}={}", sep, p.name, v);
    sep = ',';
  }
  return s;
}

void Registry::add(AlgorithmInfo info) {
  std::vector<std::string> names{info.name};
  names.insert(names.end(), info.aliases.begin(), info.aliases.end());
  for (const auto& n : names) {
    if (const AlgorithmInfo* other = find(n))
      throw std::logic_error(fmt::format("scheduler name '{}' of '{}' is already taken by '{}'", n,
                                         info.name, other->name));
  }
  for (const auto& p : info.params) {
    bool ok = !p.choices.empty()
                  ? std::find(p.choices.begin(), p.choices.end(), p.default_choice) != p.choices.end()
                  : in_range(p, p.default_value) && (!p.pair || in_range(p, p.default_value2)) &&
                        (!p.integer || p.default_value == std::floor(p.default_value));
    if (!ok)
      throw std::logic_error(fmt::format("scheduler '{}': default of '{}' ({}) is not valid",
                                         info.name, p.name, format_param_default(p)));
  }
  algorithms_.push_back(std::move(info));
}

const AlgorithmInfo* Registry::find(std::string_view name) const {
  std::string n = lower(trim(name));
  for (const auto& a : algorithms_) {
    if (lower(a.name) == n) return &a;
    for (const auto& alias : a.aliases)
      if (lower(alias) == n) return &a;
  }
  return nullptr;
}

std::pair<const AlgorithmInfo*, Params> Registry::parse(std::string_view spec) const {
  std::string s = trim(spec);
  auto colon = s.find(':');
  std::string name = trim(s.substr(0, colon));
  const AlgorithmInfo* a = find(name);
  if (a == nullptr) {
    std::string names;
    for (const auto& x : algorithms_) names += (names.empty() ? "" : ", ") + x.name;
    throw SpecError(fmt::format("unknown scheduler '{}'; valid: {}", name, names));
  }
  Params params;
  for (const auto& p : a->params) {
    if (p.pair)
      params.pairs_[p.name] = {p.default_value, p.default_value2};
    else if (p.choices.empty())
      params.numbers_[p.name] = p.default_value;
    else
      params.choices_[p.name] = p.default_choice;
  }
  if (colon == std::string::npos) return {a, params};
  std::set<std::string> seen;
  std::string rest = s.substr(colon + 1);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    std::size_t comma = rest.find(',', pos);
    std::string item = trim(rest.substr(pos, comma == std::string::npos ? std::string::npos
                                                                          : comma - pos));
    pos = comma == std::string::npos ? rest.size() + 1 : comma + 1;
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      throw SpecError(fmt::format("{}: parameter '{}' has no value (write key=value); {}",
                                  a->name, item, valid_keys(*a)));
    std::string key = lower(trim(item.substr(0, eq)));
    std::string value = trim(item.substr(eq + 1));
    auto it = std::find_if(a->params.begin(), a->params.end(),
                           [&](const ParamSpec& p) { return lower(p.name) == key; });
    if (it == a->params.end())
      throw SpecError(fmt::format("{}: unknown parameter '{}'; {}", a->name, key, valid_keys(*a)));
    if (!seen.insert(it->name).second)
      throw SpecError(fmt::format("{}: parameter '{}' given twice", a->name, it->name));
    if (!it->choices.empty()) {
      std::string v = lower(value);
      auto c = std::find(it->choices.begin(), it->choices.end(), v);
      if (c == it->choices.end())
        throw SpecError(fmt::format("{}: '{}' is not a valid value for '{}'; {}", a->name, value,
                                    it->name, describe_param(*it)));
      params.choices_[it->name] = *c;
    } else if (it->pair) {
      params.pairs_[it->name] = parse_pair(*a, *it, value);
    } else {
      params.numbers_[it->name] = parse_value(*a, *it, value);
    }
  }
  return {a, params};
}

std::unique_ptr<Scheduler> Registry::make(std::string_view spec, const DeviceModel& model) const {
  auto [a, params] = parse(spec);
  if (a->needs_rotation && !model.rotational() && model.kind() != "mems")
    throw SpecError(fmt::format(
        "scheduler '{}' needs a device geometry with rotational positions; model '{}' has none",
        a->name, model.name()));
  if (a->needs_mems && model.kind() != "mems")
    throw SpecError(fmt::format("scheduler '{}' needs the MEMS model; model '{}' is a {}",
                                a->name, model.name(), model.kind()));
  return a->factory(params, model);
}

namespace {

// Algorithms under which a request can wait without bound while others keep arriving
// nearer the head (or, for priority, in a higher class). Said in `sched list` because a
// starved request is a process the kernel reports hung after 120 s
// (kernel.hung_task_timeout_secs).
constexpr std::pair<std::string_view, std::string_view> kStarvation[] = {
    {"sstf", "a steady stream of nearer requests"},
    {"satf", "a steady stream of requests cheaper to reach"},
    {"vr", "a steady stream of nearer requests when R < 1 (V(0) is SSTF)"},
    {"gstf", "a steady stream into the group being served"},
    {"zsptf", "a steady stream into the zone being served (Hong sec. 6)"},
    {"pzsptf", "a steady stream into the zone being served (Hong sec. 6)"},
    {"priority", "critical requests, with timeout=0 only"},
};

void note_starvation(std::vector<AlgorithmInfo>& algorithms) {
  for (auto& a : algorithms)
    for (const auto& [name, how] : kStarvation)
      if (a.name == name) a.description += fmt::format(" [can starve a request: {}]", how);
}

}  // namespace

const Registry& Registry::builtin() {
  static const Registry r = [] {
    Registry reg;
    register_seek_algorithms(reg);
    register_rotational_algorithms(reg);
    register_class_algorithms(reg);
    register_mems_algorithms(reg);
    note_starvation(reg.algorithms_);
    return reg;
  }();
  return r;
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view spec, const DeviceModel& model) {
  return Registry::builtin().make(spec, model);
}

}  // namespace disksched
