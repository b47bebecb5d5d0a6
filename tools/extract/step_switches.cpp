// The switch step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/stats.hpp"

namespace disksched::extract {

void measure_switches(Instrument& in, Findings& f, double budget_share) {
  in.step("switch");
  Layout& L = f.result.layout;
  // Pairs of reach thresholds at one place: half a track ahead on the same track (dead
  // time) and on the next head of the same cylinder (dead time + head switch). The
  // difference of a pair is one head-switch sample. Sample until the medians' standard
  // errors are small against the 0.1 ms this is good for, within a share of the budget.
  std::vector<double> dead{f.result.dead_time_ms};
  std::vector<double> hs;
  const Millis start = in.elapsed();
  const Millis share = std::min(budget_share * in.options.budget_ms, 0.5 * std::max(0.0, in.left()));
  auto sem = [](const std::vector<double>& v) {
    return v.size() < 3 ? 1e9 : 1.253 * robust_sigma(v) / std::sqrt(static_cast<double>(v.size()));
  };
  for (int i = 0; i < 15; ++i) {
    const bool enough = i >= 3 && sem(dead) < 0.02 && (L.heads == 1 || sem(hs) < 0.02);
    if (enough || (i >= 3 && in.elapsed() - start > share)) break;
    const ZoneLayout& z = L.zones[static_cast<std::size_t>(i) % L.zones.size()];
    const auto c = z.first_cylinder +
                   static_cast<std::int64_t>(in.rand_below(static_cast<std::uint64_t>(std::max<std::int64_t>(1, f.sampled_cylinders(z) - 1))));
    const auto h = static_cast<std::int32_t>(in.rand_below(static_cast<std::uint64_t>(std::max(1, L.heads - 1))));
    if (!L.has_data(c, h) || (L.heads > 1 && !L.has_data(c, h + 1))) continue;  // spare or slipped
    const std::uint64_t src = L.lba(c, h, 1);
    const Millis same = in.reach(L.lba(c, h, 1), L.lba(c, h, z.spt / 2 + 1), 0.0, in.prober.period()) - in.tau(z.spt);
    dead.push_back(same);
    if (L.heads > 1) {
      const Millis base = in.tau(z.spt) + same;
      const Millis next = in.reach(src, L.lba(c, h + 1, z.spt / 2), base - 0.3, base + f.head_switch_guess + 1.0);
      hs.push_back(next - base);
      f.head_switch_guess = median(hs);
    }
    in.tick(std::min(1.0, (in.elapsed() - start) / share));
  }
  f.result.dead_time_ms = median(dead);
  f.head_switch = hs.empty() ? 0.0 : std::max(0.0, median(hs));
}

}  // namespace disksched::extract
