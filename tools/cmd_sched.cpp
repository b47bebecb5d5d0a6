// `disksched sched list|check`: the scheduling algorithms and their parameters, as the
// registry declares them (nothing here is written by hand per algorithm).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"
#include "tools/commands.hpp"

namespace disksched::cli {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Aliases, then presets with what they set: "pzsptf (= pyramid=on)".
std::vector<std::string> alias_names(const AlgorithmInfo& a) {
  std::vector<std::string> v = a.aliases;
  for (const auto& [name, args] : a.presets) v.push_back(fmt::format("{} (= {})", name, args));
  return v;
}

json param_json(const ParamSpec& p) {
  json j = {{"name", p.name}, {"unit", p.unit}, {"description", p.description}};
  if (!p.choices.empty()) {
    j["type"] = "choice";
    j["choices"] = p.choices;
    j["default"] = p.default_choice;
  } else {
    j["type"] = p.pair ? "pair" : p.integer ? "integer" : "number";
    j["default"] = p.pair ? json(format_param_default(p)) : json(p.default_value);
    j["min"] = p.min;
    j["max"] = p.max;
  }
  return j;
}

json algorithm_json(const AlgorithmInfo& a) {
  json params = json::array();
  for (const auto& p : a.params)
    if (!p.hidden) params.push_back(param_json(p));
  json presets = json::object();
  for (const auto& [name, args] : a.presets) presets[name] = args;
  return {{"name", a.name},
          {"aliases", a.aliases},
          {"presets", presets},
          {"description", a.description},
          {"source", a.source},
          {"needs_rotation", a.needs_rotation},
          {"needs_mems", a.needs_mems},
          {"default_spec", format_spec(a, Registry::builtin().parse(a.name).second)},
          {"params", params}};
}

std::string param_range(const ParamSpec& p) {
  if (!p.choices.empty()) return join(p.choices, "|");
  std::string unit = p.unit.empty() ? "" : " " + p.unit;
  if (p.pair) return fmt::format("AxB, each {}..{}{}", p.min, p.max, unit);
  return fmt::format("{}..{}{}", p.min, p.max, unit);
}

void print_table(const Registry& reg) {
  const auto& algs = reg.algorithms();
  std::size_t wname = 4, walias = 7;
  for (const auto& a : algs) {
    wname = std::max(wname, a.name.size());
    walias = std::max(walias, join(alias_names(a), ", ").size());
  }
  std::cout << fmt::format("{:<{}}  {:<{}}  {}\n", "NAME", wname, "ALIASES", walias,
                           "DESCRIPTION");
  for (const auto& a : algs) {
    std::string needs = a.needs_mems ? " [MEMS model]" : a.needs_rotation ? " [rotational model]" : "";
    std::cout << fmt::format("{:<{}}  {:<{}}  {}{}\n", a.name, wname, join(alias_names(a), ", "),
                             walias, a.description, needs);
    std::cout << fmt::format("{:<{}}  {:<{}}  source: {}\n", "", wname, "", walias, a.source);
    for (const auto& p : a.params) {
      if (p.hidden) continue;  // test oracles and ablations
      std::cout << fmt::format("{:<{}}  {:<{}}    {}={} (default {}): {}\n", "", wname, "", walias,
                               p.name, param_range(p), format_param_default(p), p.description);
    }
  }
  std::cout << fmt::format(
      "\n{} algorithms. A spec is name[:key=value,...], e.g. sswt:threshold=600; durations "
      "need a unit: ns, us, ms or s (timeout=500ms, 0.5s).\n",
      algs.size());
}

}  // namespace

void add_sched_commands(CLI::App& app) {
  auto* sched = app.add_subcommand("sched", "scheduling algorithms");
  sched->require_subcommand(1);

  auto* list = sched->add_subcommand("list", "every algorithm with its parameters");
  auto json_flag = std::make_shared<bool>(false);
  list->add_flag("--json", *json_flag, "JSON: a list of {name, description, params, ...}");
  list->callback([json_flag] {
    const Registry& reg = Registry::builtin();
    if (*json_flag) {
      json out = json::array();
      for (const auto& a : reg.algorithms()) out.push_back(algorithm_json(a));
      std::cout << out.dump(2) << "\n";
    } else {
      print_table(reg);
    }
  });

  auto* check = sched->add_subcommand(
      "check", "validate a scheduler spec against a model and print its canonical form");
  auto spec = std::make_shared<std::string>();
  auto model = std::make_shared<std::string>("hp97560");
  check->add_option("SPEC", *spec, "e.g. asatf:w=30 or priority:variant=2,timeout=500ms")
      ->required();
  check->add_option("--model", *model, "device model (built-in name or profile path)")
      ->capture_default_str();
  check->callback([spec, model] {
    auto m = load_model(*model);
    auto s = make_scheduler(*spec, *m);
    std::cout << s->spec() << "\n";
  });
}

}  // namespace disksched::cli
