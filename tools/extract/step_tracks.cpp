// The tracks step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

void first_tracks(Instrument& in, Findings& f, double /*share*/) {
  in.step("tracks");
  f.step0 = rough_step(in.prober, 0);
  in.prober.set_repeats(repeats_for(in.prober, f.step0));
  in.tick(0.3);
  TrackScan s = scan_tracks(in.prober, 0, f.step0, 2);
  if (!s.exact && !s.boundaries.empty() && (in.prober.noisy() || in.prober.repeats() > 1)) {
    // On a noisy host one boundary's check can fail, and a scan left with one reads as a
    // disk whose skews do not show: no heads are found then, and the rest is measured as
    // one head (busy seed 105 of 200 in virtual time). Once more, heavier and over a
    // track more. (A disk without skews shows none at all.)
    const int r = in.prober.repeats();
    in.prober.set_repeats(std::max(5, r + 2));
    s = scan_tracks(in.prober, 0, f.step0, 3);
    in.prober.set_repeats(r);
  }
  f.spt0 = s.spt;
  f.step0 = 1.0 / f.spt0;
  in.prober.set_repeats(repeats_for(in.prober, f.step0));
  f.boundaries_visible = s.exact;
  if (!s.exact)
    in.note(fmt::format("no track skew visible near LBA 0: {} sectors per track from the phase step; "
                        "tracks are taken to start at multiples of it",
                        f.spt0));
  if (in.options.seeds.sectors_per_track && *in.options.seeds.sectors_per_track != static_cast<int>(f.spt0))
    in.note(fmt::format("MODE SENSE page 03h says {} sectors per track, timing finds {} at LBA 0",
                        *in.options.seeds.sectors_per_track, f.spt0));
  in.tick(0.8);
  f.scan0 = s;
  // Dead time: reach a sector half a track ahead on the same track (tracks between
  // the boundaries found, which hold no hole big enough to matter here).
  std::vector<double> dead;
  std::vector<std::uint64_t> starts;
  for (std::size_t i = 0; i + 1 < s.boundaries.size() && starts.size() < 3; ++i) starts.push_back(s.boundaries[i]);
  for (std::uint64_t k = 1; starts.size() < 3; ++k) starts.push_back(k * f.spt0);
  for (std::uint64_t start : starts) {
    const std::uint64_t src = start + 1, dst = src + f.spt0 / 2;
    dead.push_back(in.reach(src, dst, 0.0, in.prober.period()) - in.tau(f.spt0));
  }
  f.result.dead_time_ms = median(dead);
  in.tick(1.0);
}

}  // namespace disksched::extract
