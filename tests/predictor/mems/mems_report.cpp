// Prints the MEMS model's numbers beside Hong et al.'s (MASCOTS 2003): settle time, zone
// sizes under each rule / spring model / placement, equivalence regions, the reach of
// Fig. 2, and the cost of one positioning evaluation. Nothing here is asserted against
// Hong's numbers; predictor/mems/README.md quotes this program's output.
//
// Usage: mems_report [MODEL]   (default: the built-in `mems`)
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "predictor/mems/mems_map.hpp"
#include "predictor/mems/mems_zones.hpp"

using namespace disksched;

namespace {

// CPU time of this thread: the machine may be shared, and waiting is not evaluating.
double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double ns_per_eval(const DeviceModel& m, bool closed_form) {
  const auto* mems = dynamic_cast<const MemsModel*>(&m);
  std::mt19937_64 rng(1);
  const std::uint64_t lbas = m.capacity_bytes() / m.sector_bytes();
  std::uniform_int_distribution<std::uint64_t> pick(0, lbas - 16);
  std::vector<Location> targets;
  for (int i = 0; i < 4096; ++i) targets.push_back(m.locate(pick(rng), 16, Op::Read));
  std::vector<double> runs;
  for (int run = 0; run < 5; ++run) {
    HeadState h = m.initial_state();
    h.cylinder = m.cylinders() / 3;
    const long n = closed_form ? 500'000 : 4'000'000;
    double sum = 0;
    const double t0 = thread_cpu_ns();
    for (long i = 0; i < n; ++i) {
      const Location& t = targets[static_cast<std::size_t>(i) & 4095];
      sum += closed_form ? mems->sled().seek_eq_ms(h.cylinder, h.y, h.y_dir, t.cylinder, t.y, t.y_dir)
                         : m.positioning_ms(h, t);
    }
    const double t1 = thread_cpu_ns();
    if (sum < 0) std::puts("");  // keep the loop
    runs.push_back((t1 - t0) / static_cast<double>(n));
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const auto owned = load_model(argc > 1 ? argv[1] : "mems");
  const auto* m = dynamic_cast<const MemsModel*>(owned.get());
  if (m == nullptr) {
    fmt::print(stderr, "mems_report: '{}' is not a MEMS model\n", owned->name());
    return 1;
  }
  const MemsParams& p = m->params();
  fmt::print("model {}: {} x {} bits per tip region, spring factor {}, {} bytes\n\n", m->name(),
             p.bits_x, p.bits_y, p.spring_factor, m->capacity_bytes());
  fmt::print("x settle time: {:.4f} ms   (Hong sec. 7.2: 0.215 ms)\n", m->sled().settle_ms());
  fmt::print("turnaround at the centre: {:.4f} ms; at an edge moving outward {:.4f}, inward {:.4f}\n\n",
             m->sled().turnaround_ms(p.bits_y / 2.0, 1), m->sled().turnaround_ms(p.bits_y, 1),
             m->sled().turnaround_ms(0, 1));

  fmt::print("Zone sizes, x bits x y bits (Hong sec. 7.2: 0.3 ms -> 60 x 600, 0.4 ms -> 120 x 1200)\n");
  fmt::print("{:<11} {:<13} {:<11} {:>14} {:>14}\n", "rule", "spring", "placement", "T = 0.3 ms", "T = 0.4 ms");
  const std::pair<double, const char*> springs[] = {
      {p.spring_factor, "on (CMU)"}, {p.spring_factor / 2, "half (DSim)"}, {0.0, "off"}};
  for (ZoneRule rule : {ZoneRule::AllPairs, ZoneRule::Forward, ZoneRule::Reference}) {
    for (const auto& [sf, label] : springs) {
      for (ZonePlacement pl : {ZonePlacement::Everywhere, ZonePlacement::Centre}) {
        std::string cells[2];
        int k = 0;
        for (Millis t : {0.3, 0.4}) {
          ZoneOptions o;
          o.threshold_ms = t;
          o.rule = rule;
          o.spring_factor = sf;
          o.placement = pl;
          const ZoneSize z = mems_zone_size(*m, o);
          cells[k++] = fmt::format("{} x {}", z.zone_x_bits, z.zone_y_bits);
        }
        fmt::print("{:<11} {:<13} {:<11} {:>14} {:>14}\n", zone_rule_name(rule), label,
                   zone_placement_name(pl), cells[0], cells[1]);
      }
    }
  }

  fmt::print("\nEquivalence regions, x bits x y bits of the start's parity (Hong sec. 5: x:y about 1:10)\n");
  const std::int64_t cx = p.bits_x / 2, cy = p.bits_y / 2;
  const std::pair<std::int64_t, std::int64_t> starts[] = {
      {cx, cy}, {cx + 25, cy}, {p.bits_x - 1, p.bits_y - 1}, {p.bits_x - 26, p.bits_y - 1}};
  for (const auto& [x0, y0] : starts) {
    const auto s = mems_equivalence_summary(*m, x0, y0);
    std::string row;
    for (const auto& e : s.regions)
      row += fmt::format("  {:.1f} ms: {} x {} (1:{:.1f})", e.threshold_ms, e.x_bits, e.y_bits, e.y_per_x);
    fmt::print("from ({}, {}), Hong's ({}, {}):{}\n   geometric mean x:y = 1:{:.1f}\n", x0, y0, x0 - cx,
               y0 - cy, row, s.y_per_x);
  }

  fmt::print("\nFraction of the tip region reachable from the centre (Hong Fig. 2, 0.1 ms bands)\n");
  const MemsGrid g = mems_seek_grid(*m, cx, static_cast<double>(cy), 1, 1);
  for (const auto& r : mems_reach(g, mems_band_thresholds(g)))
    fmt::print("  <= {:.1f} ms: {:6.2f}%\n", r.threshold_ms, 100 * r.fraction);

  fmt::print("\nPositioning evaluation (median of 5 runs, thread CPU time, random targets):\n");
  fmt::print("  fast path (tables): {:.1f} ns   (target <= 50 ns; Hong's PIII: 5100-7100 ns)\n",
             ns_per_eval(*m, false));
  fmt::print("  Hong's closed forms with libm: {:.1f} ns\n", ns_per_eval(*m, true));
  return 0;
}
