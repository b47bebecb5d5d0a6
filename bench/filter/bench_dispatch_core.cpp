// The dispatch core's CPU cost per request (queue, scheduler pick, head tracking), with
// no threads or wake-ups: one request arrives and one completes per iteration, with a
// standing queue of N requests. This is the "decision" part of the dispatch gap.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "bench/experiments/workload/workload.hpp"
#include "daemon/filter/live_core.hpp"
#include "predictor/lbn_model.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

// `tail`: also time each request alone and report the median, 99.9th percentile and
// maximum (ns) as counters: a refit that runs at one completion in 256 shows up there,
// not in the mean. `background`: the period refit runs as the filter runs it, on another
// thread from a snapshot: the snapshot is taken in the timed part (the completion path
// takes it under the lock), the fit itself is not timed.
void run(benchmark::State& state, const char* spec, bool geometry, bool tail = false,
         bool background = false) {
  const auto queue = static_cast<std::uint64_t>(state.range(0));
  std::unique_ptr<DeviceModel> model =
      geometry ? load_model("hp97560") : std::unique_ptr<DeviceModel>(std::make_unique<LbnModel>(1ull << 30));
  const std::uint64_t slots = model->capacity_bytes() / 8192 - 1;
  auto sched = make_scheduler(spec, *model);
  LiveCore::Options o;
  o.fixed_delta = 0.2;
  o.fit_period_inline = !background;
  LiveCore core(std::move(model), std::move(sched), o);
  Rng rng(1);
  std::vector<std::uint64_t> out;
  Millis now = 0;
  auto request = [&] { return RequestRecord::arriving(Op::Read, rng.below(slots) * 8192, 8192); };
  for (std::uint64_t i = 0; i <= queue; ++i) core.arrive(request(), now, out);
  std::uint64_t at_device = out.front();
  out.clear();
  std::vector<double> each;
  for (auto _ : state) {
    const auto start = tail ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    now += 10.0;
    core.complete(at_device, now, true, out);
    at_device = out.front();
    out.clear();
    core.arrive(request(), now, out);
    std::optional<RotationEstimator> snapshot;
    if (background && core.tracker().period_fit_due())
      snapshot.emplace(core.tracker().period_snapshot());
    if (tail)
      each.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    if (snapshot) {
      state.PauseTiming();
      core.tracker().adopt_period_fit(snapshot->fitted());
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (tail && !each.empty()) {
    auto at = [&](double q) {
      auto k = each.begin() + static_cast<std::ptrdiff_t>(q * (each.size() - 1));
      std::nth_element(each.begin(), k, each.end());
      return *k;
    };
    state.counters["p50_ns"] = at(0.5);
    state.counters["p999_ns"] = at(0.999);
    state.counters["max_ns"] = at(1.0);
  }
}

}  // namespace

BENCHMARK_CAPTURE(run, fcfs, "fcfs", false)->Arg(1)->Arg(32);
BENCHMARK_CAPTURE(run, sstf, "sstf:by=lbn", false)->Arg(1)->Arg(32);
BENCHMARK_CAPTURE(run, asatf_hp97560, "asatf:w=30", true)->Arg(1)->Arg(32);
BENCHMARK_CAPTURE(run, satf_hp97560, "satf", true)->Arg(32);
BENCHMARK_CAPTURE(run, asatf_hp97560_tail, "asatf:w=30", true, true)->Arg(32)->Iterations(200000);
BENCHMARK_CAPTURE(run, asatf_hp97560_background, "asatf:w=30", true, false, true)->Arg(32);
BENCHMARK_CAPTURE(run, asatf_hp97560_background_tail, "asatf:w=30", true, true, true)
    ->Arg(32)->Iterations(200000);

BENCHMARK_MAIN();
