// The one spec language of the project: `name[:key=value,...]` with typed, ranged,
// unit-aware values. Schedulers ("asatf:w=30"), workloads ("uniform:size=8k") and their
// listings and error messages all come from SpecParam declarations read here.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace disksched {

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct SpecParam {
  std::string name;
  // Shown to users, and says how values read (common/units.hpp): "ms" is a duration
  // (ns, us, ms, s; held in ms), "bytes" a size (k, m, g), "fraction" 0..1 or a
  // percentage; any other unit takes a bare number or the number followed by the unit.
  std::string unit;
  std::string description;
  double default_value = 0;  // numeric parameters
  double min = 0;
  double max = 0;
  std::vector<std::string> choices;  // non-empty: an enumerated parameter
  std::string default_choice;        // its default
  // A two-number parameter written "AxB" (e.g. a zone size "120x1200"): both numbers
  // share the unit and the range [min, max]; the default is default_value x
  // default_value2. Read it with SpecValues::pair().
  bool pair = false;
  double default_value2 = 0;
  // A count (requests, dispatches): the value must be a whole number.
  bool integer = false;
  // A test oracle or an ablation: accepted in specs and written in the canonical spec
  // (which names every parameter), left out of listings and "valid:" hints.
  bool hidden = false;
  // Written in the canonical spec only when not its default: a parameter added later,
  // so the specs (and the keys made from them) of before read the same.
  bool written_when_set = false;
};

// Declaring parameters by field name (so declarations stay valid as SpecParam grows).
SpecParam number_param(std::string name, std::string unit, std::string description,
                       double default_value, double min, double max);
// A whole number (requests, cylinders).
SpecParam count_param(std::string name, std::string unit, std::string description,
                      double default_value, double min, double max);
SpecParam choice_param(std::string name, std::string description,
                       std::vector<std::string> choices, std::string default_choice);

// Parsed, validated values, every parameter present (defaults filled in).
class SpecValues {
 public:
  double number(const std::string& name) const { return numbers_.at(name); }
  const std::string& choice(const std::string& name) const { return choices_.at(name); }
  std::pair<double, double> pair(const std::string& name) const { return pairs_.at(name); }
  std::map<std::string, double> numbers_;
  std::map<std::string, std::string> choices_;
  std::map<std::string, std::pair<double, double>> pairs_;
};

// "name:rest" -> {"name", "rest"} (trimmed; rest empty without a ':').
std::pair<std::string, std::string> split_spec_name(std::string_view spec);

// The defaults of `params`.
SpecValues spec_defaults(const std::vector<SpecParam>& params);
// Whether a parameter's own default lies in its range or choices.
bool spec_default_valid(const SpecParam& p);

// Reads "key=value,key=value" into `values`, checking keys, values, units and ranges.
// Throws SpecError starting with `owner` ("asatf", "workload 'uniform'") that names the
// key or value and what is valid.
void parse_spec_args(std::string_view owner, const std::vector<SpecParam>& params,
                     std::string_view args, SpecValues& values);
// The same for items already split.
void parse_spec_items(std::string_view owner, const std::vector<SpecParam>& params,
                      const std::vector<std::string_view>& items, SpecValues& values);

// "threshold in [0, 1000] dispatches (default 600)", "by=cyl|lbn (default cyl)".
std::string describe_param(const SpecParam& p);
// "valid: ...; ..." for the visible parameters, or "'NAME' takes no parameters".
std::string valid_params(std::string_view owner, const std::vector<SpecParam>& params);
// How a default is written in a spec: "600", "500ms", "look", "120x1200".
std::string format_param_default(const SpecParam& p);
// How a value is written back so it reads the same.
std::string format_param_value(const SpecParam& p, const SpecValues& values);
// "name:key=value,..." with every parameter in declaration order.
std::string format_spec(std::string_view name, const std::vector<SpecParam>& params,
                        const SpecValues& values);

}  // namespace disksched
