// Fuzz target: sweep point files (DIR/points/ID.json), as `disksched sweep run` and
// `sweep merge` read them back, for one fixed point of a small plan.
// Documented failure: PointFileError. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/experiments/sweep/sweep_points.hpp"

namespace {

// The plan of `disksched sweep --model hp97560 --sched fcfs --rates 10 --reps 1
// --requests 200 --warmup 50 --plan`, whose point 0 the seed corpus holds as written.
struct Fixture {
  disksched::SweepPlan plan;
  std::string key;
  Fixture() {
    disksched::SweepSpec spec;
    spec.model = "hp97560";
    spec.scheds = {"fcfs"};
    spec.rates = {10.0};
    spec.reps = 1;
    spec.cfg.measured = 200;
    spec.cfg.warmup = 50;
    spec.cfg.max_queue = 5000;
    plan = disksched::plan_sweep(spec);
    key = disksched::point_key(plan.spec, plan.points.at(0));
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Fixture f;
  try {
    (void)disksched::parse_point(std::string_view(reinterpret_cast<const char*>(data), size),
                                 "fuzz/points/0.json", f.key, f.plan.points[0]);
  } catch (const disksched::PointFileError&) {
  }
  return 0;
}
