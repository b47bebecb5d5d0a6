// ns per access-time evaluation: the schedulers' inner loop (issue 2 target: <= 10 ns
// for the HP 97560, <= 50 ns for MEMS on one core). For context, Hong et al. paid
// 5.1-7.1 us per evaluation on a 700 MHz Pentium III.
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "predictor/device_model.hpp"

namespace {

using namespace disksched;

void access_time(benchmark::State& state, const char* model_name) {
  std::unique_ptr<DeviceModel> m;
  try {
    m = load_model(model_name);
  } catch (const ModelError& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::mt19937_64 rng(1);
  const std::uint64_t lbas = m->capacity_bytes() / m->sector_bytes();
  std::uniform_int_distribution<std::uint64_t> pick(0, lbas - 16);
  std::vector<Location> targets;
  for (int i = 0; i < 4096; ++i) targets.push_back(m->locate(pick(rng), 16, Op::Read));
  HeadState h = m->initial_state();
  h.cylinder = m->cylinders() / 3;
  std::size_t i = 0;
  double sum = 0;
  for (auto _ : state) {
    h.time_ms += 0.013;  // a different rotational position every evaluation
    sum += m->positioning_ms(h, targets[i++ & 4095]);
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
  state.counters["target_ns"] = std::string(model_name) == "mems" ? 50 : 10;
  state.counters["hong03_PIII_ns"] = 5100;
}

BENCHMARK_CAPTURE(access_time, hp97560, "hp97560");
BENCHMARK_CAPTURE(access_time, hp97560_full, "hp97560-full");
BENCHMARK_CAPTURE(access_time, mems, "mems");

}  // namespace

BENCHMARK_MAIN();
