// One experiment point: a model, a scheduler, a workload and a rate, run K times
// with independent seeds (the method of replications), summarised with 95% CIs.
//
// Replication r uses the seed Rng::derive(seed, r), whatever the scheduler, so at a
// given rate every algorithm sees the same K arrival streams (common random numbers:
// differences between algorithms are not noise from different inputs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/experiments/workload/workload.hpp"
#include "emulator/sim/simulator.hpp"
#include "emulator/sim/stats.hpp"
#include "predictor/device_model.hpp"

namespace disksched {

struct PointSpec {
  std::string sched;        // registry spec
  double rate = 0.0;        // requests/s (open workloads; 0 for closed or a trace's own timing)
  std::size_t reps = 1;
  std::uint64_t seed = 1;
  SimConfig cfg;
};

struct PointResult {
  std::string sched;        // the scheduler's canonical spec
  double rate = 0.0;
  std::vector<RunSummary> runs;
  Replicated stats;
};

// The seed of replication `rep`.
std::uint64_t replication_seed(std::uint64_t seed, std::size_t rep);

// One run. Keeps the full result in `out` when given (and reuses the storage of the
// measured records `out` held).
RunSummary run_once(const DeviceModel& model, const Workload& workload, const std::string& sched,
                    double rate, std::uint64_t seed, const SimConfig& cfg, SimResult* out = nullptr);

PointResult run_point(const DeviceModel& model, const Workload& workload, const PointSpec& spec);

// The JSON of `disksched sim --json`: requests, throughput_per_s, mean_ms, p95_ms,
// p99_ms, max_ms, std_ms, sq_cv, ci95_mean_ms (half-width), ... NaN becomes null.
nlohmann::json to_json(const PointResult& p, const std::string& model, const Workload& workload);

}  // namespace disksched
