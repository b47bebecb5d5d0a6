#include "bench/experiments/sweep/experiment.hpp"

#include <cmath>

#include "schedulers/registry.hpp"

namespace disksched {

std::uint64_t replication_seed(std::uint64_t seed, std::size_t rep) { return Rng::derive(seed, rep); }

namespace {

template <typename Sim>
SimResult run_stream(Sim& sim, const DeviceModel& model, const Workload& workload, double rate,
                     std::uint64_t seed) {
  if (workload.is_closed()) {
    auto clients = workload.closed_stream(DeviceExtent::of(model), seed);
    return sim.run(*clients);
  }
  auto arrivals = workload.open_stream(DeviceExtent::of(model), rate, seed);
  return sim.run(*arrivals);
}

}  // namespace

RunSummary run_once(const DeviceModel& model, const Workload& workload, const std::string& sched,
                    double rate, std::uint64_t seed, const SimConfig& cfg, SimResult* out) {
  if (out == nullptr && cfg.keep_records && cfg.measured > 0) {
    // Only the summary is wanted: each measured request's few values go to its place
    // by seq as it completes, not its whole record. The storage serves every run of
    // this thread.
    thread_local std::vector<MeasuredSample> samples;
    SimConfig c = cfg;
    c.keep_records = false;
    Simulator sim(model, make_scheduler(sched, model), c);
    sim.collect(samples);
    const SimResult r = run_stream(sim, model, workload, rate, seed);
    return summarize(r, samples);
  }
  Simulator sim(model, make_scheduler(sched, model), cfg);
  if (out) sim.reuse(std::move(out->measured));
  SimResult r = run_stream(sim, model, workload, rate, seed);
  RunSummary s = summarize(r);
  if (out) *out = std::move(r);
  return s;
}

PointResult run_point(const DeviceModel& model, const Workload& workload, const PointSpec& spec) {
  PointResult p;
  p.sched = make_scheduler(spec.sched, model)->spec();
  p.rate = spec.rate;
  p.runs.reserve(spec.reps);
  for (std::size_t rep = 0; rep < spec.reps; ++rep)
    p.runs.push_back(run_once(model, workload, spec.sched, spec.rate,
                              replication_seed(spec.seed, rep), spec.cfg));
  p.stats = replicate(p.runs);
  return p;
}

namespace {

nlohmann::json num(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

}  // namespace

nlohmann::json to_json(const PointResult& p, const std::string& model, const Workload& workload) {
  const Replicated& s = p.stats;
  nlohmann::json j;
  j["model"] = model;
  j["sched"] = p.sched;
  j["workload"] = workload.spec();
  j["rate_per_s"] = num(p.rate);
  j["reps"] = s.reps;
  j["requests"] = s.requests;
  j["saturated"] = s.saturated;
  j["throughput_per_s"] = num(s.throughput_per_s.mean);
  j["mean_ms"] = num(s.mean_ms.mean);
  j["ci95_mean_ms"] = num(s.mean_ms.half_width);
  j["p95_ms"] = num(s.p95_ms.mean);
  j["ci95_p95_ms"] = num(s.p95_ms.half_width);
  j["p95_hist_ms"] = num(s.p95_hist_ms.mean);
  j["p99_ms"] = num(s.p99_ms.mean);
  j["max_ms"] = num(s.max_ms.mean);
  j["std_ms"] = num(s.std_ms.mean);
  j["sq_cv"] = num(s.sq_cv.mean);
  j["mean_wait_ms"] = num(s.mean_wait_ms.mean);
  j["mean_delay_ms"] = num(s.mean_delay_ms.mean);
  j["mean_service_ms"] = num(s.mean_service_ms.mean);
  j["mean_queue_len"] = num(s.mean_queue_len.mean);
  j["mean_seek_ms"] = num(s.mean_seek_ms.mean);
  j["mean_rotation_ms"] = num(s.mean_rotation_ms.mean);
  j["mean_transfer_ms"] = num(s.mean_transfer_ms.mean);
  j["mean_travel_ms"] = num(s.mean_travel_ms.mean);
  j["mean_overhead_ms"] = num(s.mean_overhead_ms.mean);
  j["utilization"] = num(s.utilization.mean);
  return j;
}

}  // namespace disksched
