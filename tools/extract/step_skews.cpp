// The skews step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/slips.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

namespace {

// Skews of one zone, in sectors, as circular medians (a skew near a whole track reads
// as a small negative one).
struct CircularSkews {
  const ZoneLayout& z;
  double step;
  double median_of(const std::vector<double>& v) const { return circular_median_sectors(v, z.spt); }
  // Standard error of a circular median, in sectors.
  double sem(const std::vector<double>& v) const {
    if (v.size() < 3) return 1e9;
    const double m = median_of(v);
    std::vector<double> d;
    for (double x : v) d.push_back(wrap_half((x - m) * step) / step);
    return 1.253 * robust_sigma(d) / std::sqrt(static_cast<double>(v.size()));
  }
};

// Long baseline: the cumulative skew model must place the start of zone zi's last
// cylinder where it is; a skew error of e sectors is e times the tracks crossed.
// (From the first cylinder whose first track holds data to the last whose last does.)
// The skews as measured (raw, not snapped) when they place it better.
void check_long_baseline(Instrument& in, Findings& f, std::size_t zi, std::int64_t sampled, double trk_raw,
                         double cyl_raw) {
  Layout& L = f.result.layout;
  ZoneLayout& z = L.zones[zi];
  const double step = 1.0 / z.spt;
  std::int64_t near = z.first_cylinder, far = z.first_cylinder + sampled - 2;
  while (near < far && !L.has_data(near, 0)) ++near;
  while (far > near && (!L.has_data(far, L.heads - 1) || L.lba(far, L.heads - 1, 1) + 2 >= in.target.sectors())) --far;
  if (far - near < 3) return;
  const auto far_head = static_cast<std::int32_t>(L.heads - 1);
  const std::uint64_t y0 = L.lba(near, 0, 1), y1 = L.lba(far, far_head, 1);
  const int reps = std::max(5, in.prober.repeats() + 2);
  const double measured = in.prober.phase(y1, reps) - in.prober.phase(y0, reps);
  auto predicted = [&](double ts, double cs) {
    const Chs3 a = L.chs(L.pba_of_lba(y0)), b = L.chs(L.pba_of_lba(y1));
    const double tracks_cyl = static_cast<double>(far - near);
    return (tracks_cyl * ((L.heads - 1) * ts + cs) + far_head * ts + b.sector - a.sector) * step;
  };
  const double err_snap = wrap_half(measured - predicted(*z.track_skew, *z.cylinder_skew)) / step;
  if (std::fabs(err_snap) <= 0.5) return;
  const double err_raw = wrap_half(measured - predicted(trk_raw, cyl_raw)) / step;
  if (std::fabs(err_raw) < std::fabs(err_snap)) {
    z.track_skew = std::round(trk_raw * 100.0) / 100.0;
    z.cylinder_skew = std::round(cyl_raw * 100.0) / 100.0;
  }
  in.note(fmt::format("zone {}: the cumulative skew model misplaces its last cylinder by {:.2f} "
                      "sectors; skews kept as {:.2f} / {:.2f}",
                      zi, std::min(std::fabs(err_snap), std::fabs(err_raw)), *z.track_skew, *z.cylinder_skew));
}

// Track and cylinder skew of zone zi, sampled within share_ms.
void zone_skews(Instrument& in, Findings& f, std::size_t zi, Millis share) {
  Layout& L = f.result.layout;
  ZoneLayout& z = L.zones[zi];
  const double step = 1.0 / z.spt;
  const CircularSkews circ{z, step};
  std::vector<double> track, cyl;
  // Sample until the standard error is under a tenth of a sector (at least 5
  // boundaries of each kind, at most 25, less when the budget is short).
  const Millis zone_start = in.elapsed();
  // A zone the zones step entered just before its time ran out (confirmed over one
  // cylinder, taken to run on) has no switch inside the measured layout: read its skews
  // from its first few cylinders, which the layout assumes, rather than leave them 0.
  std::int64_t sampled = f.sampled_cylinders(z);
  if (sampled < 2 && z.cylinders >= 2) {
    sampled = std::min<std::int64_t>(z.cylinders, 4);
    in.note(fmt::format("zone {}: skews read from its first {} cylinders, past where its layout was "
                        "measured", zi, sampled));
  }
  for (int i = 0; i < 25 && sampled >= 2; ++i) {
    const bool done = i >= 5 && circ.sem(cyl) < 0.1 && (L.heads == 1 || circ.sem(track) < 0.1);
    if (done || (i >= 5 && in.elapsed() - zone_start > share)) break;
    const auto c = z.first_cylinder + static_cast<std::int64_t>(in.rand_below(static_cast<std::uint64_t>(sampled - 1)));
    const std::uint64_t yc = L.lba(c + 1, 0, 0);
    if (yc + z.spt >= in.target.sectors()) continue;
    if (L.has_data(c, L.heads - 1) && L.has_data(c + 1, 0))  // not next to spare or slipped tracks
      cyl.push_back(measure_skew(in.prober, yc, step, 1, gap_before(f.result.layout, yc)));
    if (L.heads > 1) {
      const auto h = static_cast<std::int32_t>(1 + in.rand_below(static_cast<std::uint64_t>(L.heads - 1)));
      const std::uint64_t yt = L.lba(c, h, 0);
      if (L.has_data(c, h - 1) && L.has_data(c, h)) track.push_back(measure_skew(in.prober, yt, step, 1, gap_before(f.result.layout, yt)));
    }
  }
  // Whole sectors unless the measurements say otherwise.
  auto snap_to = [&](double x, double e) {
    const double r = std::round(x) + 0.0;
    return std::fabs(x - r) <= std::max(kSnapSectors, 3.0 * e) ? r : std::round(x * 100.0) / 100.0;
  };
  const double cyl_raw = cyl.empty() ? 0.0 : circ.median_of(cyl);
  const double trk_raw = track.empty() ? cyl_raw : circ.median_of(track);
  z.cylinder_skew = snap_to(cyl_raw, circ.sem(cyl));
  z.track_skew = track.empty() ? *z.cylinder_skew : snap_to(trk_raw, circ.sem(track));
  check_long_baseline(in, f, zi, sampled, trk_raw, cyl_raw);
  if (zi > 0 && gap_before(f.result.layout, L.zone_first_lba(z)) == 0) {
    // Crossing into a zone skews like a cylinder switch of the new zone (after spare
    // tracks there is no switch to compare).
    const std::uint64_t y = L.zone_first_lba(z);
    const double cross = measure_skew(in.prober, y, step, 1, gap_before(f.result.layout, y));
    if (std::fabs(wrap_half((cross - *z.cylinder_skew) / z.spt)) * z.spt > 1.0)
      in.note(fmt::format("zone {}: skew at its first track is {:.2f} sectors, its cylinder skew "
                          "is {:.2f}; the profile assumes they are equal",
                          zi, cross, *z.cylinder_skew));
  }
}

}  // namespace

void measure_skews(Instrument& in, Findings& f, double budget_share) {
  in.step("skews");
  if (f.skews_sampled) return;  // measured with the zones (zones_sampled.cpp)
  Layout& L = f.result.layout;
  const Millis skews_left = in.left();
  for (std::size_t zi = 0; zi < L.zones.size(); ++zi) {
    // (Its share of the budget, or half of what is left when the zones step took more.)
    const Millis share = std::min(budget_share * in.options.budget_ms, 0.5 * std::max(0.0, skews_left)) /
                         static_cast<double>(L.zones.size());
    zone_skews(in, f, zi, share);
    in.tick(static_cast<double>(zi + 1) / static_cast<double>(L.zones.size()));
  }
  if (in.options.seeds.track_skew && L.zones.front().track_skew &&
      std::fabs(*in.options.seeds.track_skew - *L.zones.front().track_skew) > 1.0)
    in.note(fmt::format("MODE SENSE page 03h says track skew {}, timing finds {:.2f}", *in.options.seeds.track_skew,
                        *L.zones.front().track_skew));
  if (in.options.seeds.cylinder_skew && L.zones.front().cylinder_skew &&
      std::fabs(*in.options.seeds.cylinder_skew - *L.zones.front().cylinder_skew) > 1.0)
    in.note(fmt::format("MODE SENSE page 03h says cylinder skew {}, timing finds {:.2f}",
                        *in.options.seeds.cylinder_skew, *L.zones.front().cylinder_skew));
}

}  // namespace disksched::extract
