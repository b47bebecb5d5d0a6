// Builds schedulers from spec strings such as "asatf:w=30" or
// "priority:variant=2,timeout=500ms". Every algorithm declares its parameters once,
// beside its code; `disksched sched list` and the error messages are generated from
// these declarations.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched {

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ParamSpec {
  std::string name;
  std::string unit;          // "ms", "sectors/s", "requests", "cylinders", "" ...
  std::string description;
  double default_value = 0;  // numeric parameters
  double min = 0;
  double max = 0;
  std::vector<std::string> choices;  // non-empty: an enumerated parameter
  std::string default_choice;        // its default
  // A two-number parameter written "AxB" (e.g. a zone size "120x1200"): both numbers
  // share the unit and the range [min, max]; the default is default_value x
  // default_value2. Read it with Params::pair().
  bool pair = false;
  double default_value2 = 0;
  // A count (requests, dispatches): the value must be a whole number.
  bool integer = false;
};

// Parsed, validated parameters handed to a factory.
class Params {
 public:
  double number(const std::string& name) const { return numbers_.at(name); }
  const std::string& choice(const std::string& name) const { return choices_.at(name); }
  std::pair<double, double> pair(const std::string& name) const { return pairs_.at(name); }
  std::map<std::string, double> numbers_;
  std::map<std::string, std::string> choices_;
  std::map<std::string, std::pair<double, double>> pairs_;
};

using SchedulerFactory =
    std::function<std::unique_ptr<Scheduler>(const Params&, const DeviceModel&)>;

struct AlgorithmInfo {
  std::string name;                  // canonical name
  std::vector<std::string> aliases;  // also accepted
  std::string description;           // one line
  std::string source;                // seed and section, e.g. "JW sec. 5.3"
  bool needs_rotation = false;       // refuses a model without rotational positions
  bool needs_mems = false;           // zone schedulers need the MEMS model
  std::vector<ParamSpec> params;
  SchedulerFactory factory;
};

// How a parameter's default (or a value) is written in a spec: "600", "0.2", "look",
// "120x1200".
std::string format_param_default(const ParamSpec& p);
// The canonical spec of an algorithm with these parameters, every one written out in
// declaration order: "sswt:threshold=600".
std::string format_spec(const AlgorithmInfo& a, const Params& p);

class Registry {
 public:
  // The registry with every algorithm of the project.
  static const Registry& builtin();

  // Adds an algorithm. Throws std::logic_error when its name or an alias is taken, or
  // when a parameter's default lies outside its own range or choices.
  void add(AlgorithmInfo info);
  const std::vector<AlgorithmInfo>& algorithms() const { return algorithms_; }
  // Finds by canonical name or alias (case-insensitive); nullptr when unknown.
  const AlgorithmInfo* find(std::string_view name) const;

  // Parses `spec` and builds the scheduler. Throws SpecError naming the unknown
  // algorithm or key, or the bad value and its valid range or choices.
  std::unique_ptr<Scheduler> make(std::string_view spec, const DeviceModel& model) const;

  // Parses and validates only (no model needed): returns the algorithm and params.
  std::pair<const AlgorithmInfo*, Params> parse(std::string_view spec) const;

 private:
  std::vector<AlgorithmInfo> algorithms_;
};

// Convenience: Registry::builtin().make(spec, model).
std::unique_ptr<Scheduler> make_scheduler(std::string_view spec, const DeviceModel& model);

// Each family registers itself; Registry::builtin() calls all of these.
void register_seek_algorithms(Registry& r);        // schedulers/seek/
void register_rotational_algorithms(Registry& r);  // schedulers/rotational/
void register_class_algorithms(Registry& r);       // schedulers/classes/
void register_mems_algorithms(Registry& r);        // schedulers/mems/

}  // namespace disksched
