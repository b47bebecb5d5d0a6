// A scheduler's own CPU time per decision, measured on this machine: one pick plus one
// add at a constant queue length (bench/schedulers/bench_schedulers.cpp's `pick` case),
// in thread CPU time, at a few queue lengths, linearly interpolated between them and
// held flat beyond. The process-flow model charges it on a CPU (process_flow.hpp,
// FlowConfig::decision_cost).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched {

struct DecisionCost {
  std::string spec;
  std::vector<std::pair<std::size_t, Millis>> points;  // (queue length, ms per decision)
  Millis at(std::size_t n) const;
};

// Measures `spec` on `model` at each of `lengths` (ascending), spending about
// `budget_ms` of CPU on each.
DecisionCost measure_decision_cost(const DeviceModel& model, const std::string& spec,
                                   const std::vector<std::size_t>& lengths, double budget_ms = 20);

}  // namespace disksched
