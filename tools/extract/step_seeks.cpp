// The seek step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/seek_fit.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

namespace {

// Cylinders up to the last whole one that holds data (spares after it show nothing).
// Below where the zones step stopped, when it stopped early (cylinders past it are
// numbered by a guess), if that is a third of the stroke or more: a curve fitted over
// less and extrapolated came out further off than seeks over the guessed cylinders
// (imported C2247A, virtual time: 7.4 ms RMS against 1.7 with 257 of 2050 cylinders;
// 0.05-0.9 ms against 1.0-1.7 with 700-900).
std::int64_t seek_cylinders(Instrument& in, const Findings& f) {
  const Layout& L = f.result.layout;
  std::int64_t cyls = std::min(L.cylinders(), L.chs(L.pba_of_lba(in.target.sectors() - 1)).cylinder);
  if (f.measured_end < cyls && 3 * f.measured_end >= cyls) {
    cyls = f.measured_end;
    in.note(fmt::format("seek curve measured over the first {} cylinders, where the layout was measured; longer seeks "
                        "are the fit's extrapolation",
                        cyls));
  }
  return cyls;
}

// Every distance up to 16 (settle plateaus), then x1.25 to the full stroke (`all`); the
// order puts a coarse spread first so that a short budget still covers the range: a
// breadth-first bisection of the (roughly logarithmic) list, so that any prefix spreads
// over the whole range, the shortest and the full stroke first.
std::vector<std::int64_t> distance_order(std::int64_t maxd, std::vector<std::int64_t>& all) {
  for (std::int64_t d = 1; d <= std::min<std::int64_t>(16, maxd); ++d) all.push_back(d);
  for (double d = 20; d < maxd; d *= 1.25) all.push_back(static_cast<std::int64_t>(std::lround(d)));
  if (all.back() != maxd) all.push_back(maxd);
  std::vector<std::int64_t> order{all.front()};
  if (all.size() > 1) order.push_back(all.back());
  std::vector<std::pair<std::size_t, std::size_t>> spans{{0, all.size() - 1}};
  while (!spans.empty()) {
    std::vector<std::pair<std::size_t, std::size_t>> next_spans;
    for (auto [a, b] : spans) {
      if (b - a < 2) continue;
      const std::size_t m = (a + b) / 2;
      order.push_back(all[m]);
      next_spans.emplace_back(a, m);
      next_spans.emplace_back(m, b);
    }
    spans = std::move(next_spans);
  }
  return order;
}

// One seek of d cylinders at a random place, both ends on tracks that hold data.
class SeekSampler {
 public:
  SeekSampler(Instrument& in, Findings& f, std::int64_t cyls) : in_(in), f_(f), cyls_(cyls) {}

  Millis measure(std::int64_t d, bool outward) {
    const Layout& L = f_.result.layout;
    std::int64_t c0 = 0;
    std::int32_t h = 0;
    for (int draw = 0; draw < 64; ++draw) {  // both ends on tracks that hold data
      c0 = static_cast<std::int64_t>(in_.rand_below(static_cast<std::uint64_t>(cyls_ - d)));
      h = static_cast<std::int32_t>(in_.rand_below(static_cast<std::uint64_t>(L.heads)));
      if (L.has_data(c0, h) && L.has_data(c0 + d, h) &&
          L.lba(c0 + d, h, L.spt_of_cylinder(c0 + d) - 1) < in_.target.sectors())
        break;
    }
    const std::int64_t src_c = outward ? c0 : c0 + d, dst_c = outward ? c0 + d : c0;
    const std::uint32_t src_spt = L.spt_of_cylinder(src_c), dst_spt = L.spt_of_cylinder(dst_c);
    // Sectors well inside their tracks: undiscovered slips at the end of the disk then
    // cannot push a target past the last LBA.
    const std::uint64_t src = L.lba(src_c, h, static_cast<std::uint32_t>(in_.rand_below(src_spt / 2)));
    const std::uint64_t dst = L.lba(dst_c, h, static_cast<std::uint32_t>(in_.rand_below(dst_spt / 2)));
    const Millis ms = in_.move_time(src, dst, dst_spt, std::max(0.0, guess(d) - 0.3), f_.result.dead_time_ms);
    f_.result.seek_points.push_back({d, ms});
    known.emplace(d, ms);
    return ms;
  }

  std::map<std::int64_t, double> known;  // distance -> first measured seek, for brackets

 private:
  double guess(std::int64_t d) const {
    if (known.empty()) return 0.0;
    auto hi = known.lower_bound(d);
    if (hi == known.begin()) return hi->second;
    auto lo = std::prev(hi);
    if (hi == known.end()) return lo->second;
    const double f = static_cast<double>(d - lo->first) / static_cast<double>(hi->first - lo->first);
    return lo->second + f * (hi->second - lo->second);
  }

  Instrument& in_;
  Findings& f_;
  std::int64_t cyls_;
};

// A curve with a jump between its short and long pieces (JW's HP 97560 has one):
// bisect between the measured distances around the breakpoint to place it exactly.
void place_breakpoint(Instrument& in, Findings& f, SeekSampler& sampler) {
  const SeekCurveSpec& spec = f.result.seek.spec;
  if (spec.form != SeekCurveSpec::Form::TwoPiece && spec.form != SeekCurveSpec::Form::ThreePiece) return;
  std::int64_t b = spec.boundary;
  auto next = sampler.known.upper_bound(b);
  if (next == sampler.known.end()) return;
  std::int64_t n = next->first;
  const auto shrt = [&](std::int64_t d) { return spec.short_a + spec.short_b * std::sqrt(static_cast<double>(d)); };
  const auto lng = [&](std::int64_t d) { return spec.long_a + spec.long_b * static_cast<double>(d); };
  const double noise = std::max(0.05, 4.0 * f.result.period.jitter_ms);
  int steps = 0;
  while (n - b > 1 && steps++ < 16 && std::fabs(shrt((b + n) / 2) - lng((b + n) / 2)) > noise) {
    const std::int64_t m = (b + n) / 2;
    const double ms = sampler.measure(m, steps % 2 == 0);
    (std::fabs(ms - shrt(m)) <= std::fabs(ms - lng(m)) ? b : n) = m;
  }
  if (steps > 0) f.result.seek = fit_seek_curve(f.result.seek_points, in.options.seek_form);
}

}  // namespace

void measure_seeks(Instrument& in, Findings& f, double /*share*/) {
  in.step("seek");
  const std::int64_t cyls = seek_cylinders(in, f);
  const std::int64_t maxd = cyls - 1;
  if (maxd < 1) {
    in.note("a single cylinder: no seek curve");
    return;
  }
  std::vector<std::int64_t> all;
  const std::vector<std::int64_t> order = distance_order(maxd, all);

  // Keep time for validation: a tenth of the budget, at most 30 s.
  const Millis reserve = std::min(0.1 * in.options.budget_ms, 30'000.0) + (in.options.writable ? 5'000.0 : 0.0);
  const Millis seek_start = in.elapsed();
  const Millis seek_budget = std::max(0.0, in.left() - reserve);
  SeekSampler sampler(in, f, cyls);
  std::size_t done = 0;
  const std::size_t min_points = std::min<std::size_t>(9, order.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Millis used = in.elapsed() - seek_start;
      if (done >= min_points && used > seek_budget) break;
      sampler.measure(order[i], ((i + static_cast<std::size_t>(pass)) % 2) == 0);
      ++done;
      in.tick(std::min(1.0, (in.elapsed() - seek_start) / std::max(1.0, seek_budget)));
    }
  }
  if (sampler.known.size() < all.size())
    in.note(fmt::format("seek curve sampled at {} of {} distances to fit the budget", sampler.known.size(), all.size()));
  f.result.seek = fit_seek_curve(f.result.seek_points, in.options.seek_form);
  place_breakpoint(in, f, sampler);
  in.tick(1.0);
}

}  // namespace disksched::extract
