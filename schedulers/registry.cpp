#include "schedulers/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/text.hpp"

namespace disksched {

std::string format_spec(const AlgorithmInfo& a, const Params& params) {
  return format_spec(a.name, a.params, params);
}

void Registry::add(AlgorithmInfo info) {
  std::vector<std::string> names{info.name};
  names.insert(names.end(), info.aliases.begin(), info.aliases.end());
  for (const auto& preset : info.presets) names.push_back(preset.first);
  for (const auto& n : names) {
    if (const AlgorithmInfo* other = find(n))
      throw std::logic_error(fmt::format("scheduler name '{}' of '{}' is already taken by '{}'", n,
                                         info.name, other->name));
  }
  for (const auto& p : info.params) {
    if (!spec_default_valid(p))
      throw std::logic_error(fmt::format("scheduler '{}': default of '{}' ({}) is not valid",
                                         info.name, p.name, format_param_default(p)));
  }
  algorithms_.push_back(std::move(info));
}

const AlgorithmInfo* Registry::find(std::string_view name) const {
  name = trim(name);
  for (const auto& a : algorithms_) {
    if (iequals(a.name, name)) return &a;
    for (const auto& alias : a.aliases)
      if (iequals(alias, name)) return &a;
    for (const auto& preset : a.presets)
      if (iequals(preset.first, name)) return &a;
  }
  return nullptr;
}

std::pair<const AlgorithmInfo*, Params> Registry::parse(std::string_view spec) const {
  auto [name, args] = split_spec_name(spec);
  const AlgorithmInfo* a = find(name);
  if (a == nullptr) {
    std::string names;
    for (const auto& x : algorithms_) names += (names.empty() ? "" : ", ") + x.name;
    throw SpecError(fmt::format("unknown scheduler '{}'; valid: {}", name, names));
  }
  Params params = spec_defaults(a->params);
  for (const auto& [preset, preset_args] : a->presets)
    if (iequals(preset, name)) parse_spec_args(a->name, a->params, preset_args, params);
  parse_spec_args(a->name, a->params, args, params);
  return {a, params};
}

std::string SchedulerSpec::text() const { return format_spec(*algorithm, params); }

void Registry::check_fit(const AlgorithmInfo& a, const Params& params, const DeviceModel& model) {
  if (a.needs_rotation && !model.rotational() && model.kind() != "mems")
    throw SpecError(fmt::format(
        "scheduler '{}' needs a device geometry with rotational positions; model '{}' has none",
        a.name, model.name()));
  if (a.needs_mems && model.kind() != "mems")
    throw SpecError(fmt::format("scheduler '{}' needs the MEMS model; model '{}' is a {}",
                                a.name, model.name(), model.kind()));
  if (a.check) a.check(params, model);
}

SchedulerSpec Registry::check(std::string_view spec, const DeviceModel& model) const {
  auto [a, params] = parse(spec);
  check_fit(*a, params, model);
  return {a, std::move(params)};
}

std::unique_ptr<Scheduler> Registry::make(const SchedulerSpec& spec,
                                          const DeviceModel& model) const {
  check_fit(*spec.algorithm, spec.params, model);
  std::unique_ptr<Scheduler> s = spec.algorithm->factory(spec.params, model);
  if (s) s->needs_rotation_ = spec.algorithm->needs_rotation;
  return s;
}

std::unique_ptr<Scheduler> Registry::make(std::string_view spec, const DeviceModel& model) const {
  auto [a, params] = parse(spec);
  return make(SchedulerSpec{a, std::move(params)}, model);
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
    {"priority", "noncritical requests with timeout=0 or expired=mix; critical requests with "
                 "expired=first, under a flood of timed-out noncritical ones"},
    {"qos", "noncritical requests with bg-wait=0; within a class, order=sstf or satf as those"},
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
