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

#include "common/spec.hpp"
#include "predictor/device_model.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched {

// The spec language (name:key=value with units) is the ground floor's: common/spec.hpp.
using ParamSpec = SpecParam;
using Params = SpecValues;

using SchedulerFactory =
    std::function<std::unique_ptr<Scheduler>(const Params&, const DeviceModel&)>;
// What the parameters must meet together, or with the model, beyond each one's own range
// or choices. Throws SpecError saying what is wrong.
using SpecCheck = std::function<void(const Params&, const DeviceModel&)>;

// Each algorithm declares itself with designated initializers ({.name = ..., .factory = ...});
// every member has a default, so a declaration names only what it sets (and g++ 12 does not
// warn about the members it leaves out).
struct AlgorithmInfo {
  std::string name{};                  // canonical name
  std::vector<std::string> aliases{};  // also accepted
  // Names for this algorithm with some parameters set, e.g. {"pzsptf", "pyramid=on"}:
  // listed as aliases that say so; parameters given after the name may override them.
  std::vector<std::pair<std::string, std::string>> presets{};
  std::string description{};           // one line
  std::string source{};                // seed and section, e.g. "JW sec. 5.3"
  bool needs_rotation = false;         // refuses a model without rotational positions
  bool needs_mems = false;             // zone schedulers need the MEMS model
  std::vector<ParamSpec> params{};
  // Run before the factory (Registry::check, Registry::make), which may then assume it.
  SpecCheck check{};
  SchedulerFactory factory{};
};

// A spec parsed and checked against a model (Registry::check): its scheduler is built
// from it without parsing the text again.
struct SchedulerSpec {
  const AlgorithmInfo* algorithm = nullptr;
  Params params;
  // The canonical text, every parameter written out: what the scheduler's spec() says.
  std::string text() const;
};

// The canonical spec of an algorithm with these parameters, every one written
// out in declaration order: "sswt:threshold=600". (format_param_default: common/spec.hpp.)
std::string format_spec(const AlgorithmInfo& a, const Params& p);

class Registry {
 public:
  // The registry with every algorithm of the project.
  static const Registry& builtin();

  // Adds an algorithm. Throws std::logic_error when its name or an alias is taken, or
  // when a parameter's default lies outside its own range or choices.
  void add(AlgorithmInfo info);
  const std::vector<AlgorithmInfo>& algorithms() const { return algorithms_; }
  // Finds by canonical name, alias or preset (case-insensitive); nullptr when unknown.
  const AlgorithmInfo* find(std::string_view name) const;

  // Parses `spec` and checks that it fits `model` (the model has what the algorithm
  // needs; AlgorithmInfo::check) without building a scheduler. Throws SpecError naming
  // the unknown algorithm or key, the bad value and its valid range or choices, or what
  // the model lacks.
  SchedulerSpec check(std::string_view spec, const DeviceModel& model) const;
  // Builds the scheduler (for `model`, checked again: it may not be the one `spec` was
  // checked against). Throws as check().
  std::unique_ptr<Scheduler> make(const SchedulerSpec& spec, const DeviceModel& model) const;
  // check() then make() in one.
  std::unique_ptr<Scheduler> make(std::string_view spec, const DeviceModel& model) const;

  // Parses and validates only (no model needed): returns the algorithm and params.
  std::pair<const AlgorithmInfo*, Params> parse(std::string_view spec) const;

 private:
  // Throws SpecError when `model` lacks what `a` needs, or AlgorithmInfo::check fails.
  static void check_fit(const AlgorithmInfo& a, const Params& params, const DeviceModel& model);

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
