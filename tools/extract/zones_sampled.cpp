// The sampled zones step (zones_sampled.hpp).
//
// A zone is a track size and a grid of track starts (every spt sectors from one start
// found, nothing slipped). A track start shows as a jump of the completion phase between
// its LBA and the one before (the skew: a tenth of a turn on the drives of today, far
// above the host's jitter), so "does zone a's grid hold at LBA x" costs two phases where
// a track scan costs some forty. The step tests zone a's grid at sampled LBAs across the
// device; where it no longer holds, a scan measures the new track size, and bisection
// between the last LBA where a's grid held and the new zone's first track start finds the
// boundary, cut short when only one LBA in the bracket is a track start of both grids and
// a cylinder start of zone a (then it is confirmed by both grids holding on either side).
#include "tools/extract/zones_sampled.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/stats.hpp"
#include "tools/extract/steps.hpp"

namespace disksched::extract {
namespace {

// Samples across the LBA space: a zone holding more than 1/kSamples of the LBAs has one
// at least (the drives of today have 16-24 zones, the innermost 2.8-4 % of the LBAs);
// a narrower one is found only where a bisection passes through it.
constexpr int kSamples = 48;
// The step ends, wherever it has got to, once this share of the budget is spent.
constexpr double kSampledZonesEnd = 0.6;
// Skews: switches of each kind a zone, and reads a phase.
constexpr int kSkewSamples = 10;
constexpr int kSkewReads = 11;
// A skew must jump the phase by this many times the completion jitter to be told (a
// test takes half the jump as its threshold; its phases are each the earliest of several
// reads, whose spread is a fraction of the jitter of single completions).
constexpr double kJumpOverNoise = 3.0;

struct Grid {
  std::uint32_t spt = 0;
  std::uint64_t anchor = 0;   // an LBA where a track starts
  double jump = 0;            // rotations: the smallest skew seen at the scan's boundaries
  std::vector<double> skews;  // sectors, at those boundaries

  // The grid's track start at or before x, and at or after it.
  std::uint64_t at_or_before(std::uint64_t x) const {
    const auto d = static_cast<std::int64_t>(x) - static_cast<std::int64_t>(anchor);
    const std::int64_t k = d >= 0 ? d / spt : -((-d + spt - 1) / spt);
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(anchor) + k * spt);
  }
  std::uint64_t at_or_after(std::uint64_t x) const {
    const std::uint64_t p = at_or_before(x);
    return p == x ? p : p + spt;
  }
  bool holds(std::uint64_t x) const { return at_or_before(x) == x; }
};

struct FoundZone {
  Grid g;
  std::uint64_t first_lba = 0;
  bool exact = false;  // its first LBA on both grids (and a cylinder start of the zone before)
};

class SampledZones {
 public:
  SampledZones(Instrument& in, Findings& f) : in_(in), f_(f), total_(in.target.sectors()) {}
  void run();

 private:
  Grid scan_at(std::uint64_t x, const Grid& near);
  std::optional<Grid> quick_grid(std::uint64_t x, const Grid& near);
  std::optional<std::uint64_t> first_start(std::uint64_t lo, std::uint64_t hi, double ph_lo, double step, double thr);
  bool jump_at(const Grid& g, std::uint64_t x);
  void boundary(std::uint64_t lo, const Grid& c, std::uint64_t hi);
  bool bisect(std::uint64_t lo, Grid c, std::uint64_t hi, bool last);
  std::optional<std::uint64_t> only_candidate(std::size_t ai, const Grid& c, std::uint64_t lo, std::uint64_t hi) const;
  bool confirmed(const Grid& a, const Grid& c, std::uint64_t z);
  std::uint64_t front() const;
  void build_layout(std::uint64_t searched);
  void zone_skews(std::size_t zi);

  Instrument& in_;
  Findings& f_;
  const std::uint64_t total_;
  std::vector<FoundZone> zones_;
  int scans_ = 0, full_scans_ = 0, tests_ = 0, retries_ = 0;
  bool careful_ = false;  // each grid test taken twice
};

// The grid of a scan's track size and first boundary, with the skews it saw (those of
// the track size's own boundaries: two tracks apart).
Grid grid_of(const TrackScan& s) {
  Grid g;
  g.spt = s.spt;
  g.anchor = s.boundaries.front();
  g.jump = 1.0;
  for (std::size_t i = 0; i < s.skews.size(); ++i) {
    const bool on_grid = (s.boundaries[i] - g.anchor) % s.spt == 0;
    if (!on_grid) continue;
    g.skews.push_back(s.skews[i]);
    g.jump = std::min(g.jump, std::fabs(wrap_half(s.skews[i] / s.spt)));
  }
  return g;
}

// The first track start in (lo, hi] (lo's phase ph_lo, on lo's track): bisection on
// whether a sector's phase still follows lo's track at `step` a sector, or has jumped by
// more than thr; nothing when hi itself still follows.
std::optional<std::uint64_t> SampledZones::first_start(std::uint64_t lo, std::uint64_t hi, double ph_lo, double step,
                                                       double thr) {
  const std::uint64_t lo0 = lo;
  auto follows = [&](std::uint64_t y) {
    return std::fabs(wrap_half(in_.prober.phase(y) - ph_lo - static_cast<double>(y - lo0) * step)) < thr;
  };
  if (follows(hi)) return std::nullopt;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (follows(mid) ? lo : hi) = mid;
  }
  return hi > lo0 ? std::optional<std::uint64_t>(hi) : std::nullopt;
}

// A zone's grid near x for a quarter of a track scan's reads: phases a sixth of `near`'s
// track apart over a track and a third give the phase step and the interval holding a
// track start, bisected to it; the next start is bisected for where that step puts it,
// within 4 %. Both are confirmed by the jump of their skew. Nothing where anything is
// off (a scan then).
std::optional<Grid> SampledZones::quick_grid(std::uint64_t x, const Grid& near) {
  if (near.jump <= 0) return std::nullopt;
  const std::uint64_t m = std::max<std::uint32_t>(1, near.spt / 6);
  const double thr = std::max(3.0 * in_.prober.phase_noise(), 0.3 * near.jump);
  std::vector<double> ph, d;
  for (std::uint64_t i = 0; i <= 8; ++i) ph.push_back(in_.prober.phase(x + i * m));
  for (std::size_t i = 0; i + 1 < ph.size(); ++i) d.push_back(wrap_unit(ph[i + 1] - ph[i]));
  const double d0 = median(d);
  std::vector<std::size_t> flagged;
  std::vector<double> plain;
  for (std::size_t i = 0; i < d.size(); ++i)
    (std::fabs(wrap_half(d[i] - d0)) > thr ? (void)flagged.push_back(i) : plain.push_back(d[i]));
  if (flagged.empty() || plain.size() < 4 || d0 <= 0 || d0 > 0.35) return std::nullopt;
  const double step = median(plain) / static_cast<double>(m);
  const std::uint64_t lo = x + flagged.front() * m;
  const auto b1 = first_start(lo, lo + m, ph[flagged.front()], step, thr);
  if (!b1) return std::nullopt;
  const auto spt = static_cast<std::uint64_t>(std::lround(1.0 / step));
  const std::uint64_t w = std::max<std::uint64_t>(4, spt / 25);
  if (*b1 + spt + w + 2 >= total_) return std::nullopt;
  const auto b2 = first_start(*b1 + spt - w, *b1 + spt + w, in_.prober.phase(*b1 + spt - w), step, thr);
  if (!b2) return std::nullopt;
  Grid g;
  g.spt = static_cast<std::uint32_t>(*b2 - *b1);
  g.anchor = *b1;
  g.jump = 1.0;
  const int reps = std::max(5, in_.prober.repeats() + 2);
  for (const std::uint64_t b : {*b1, *b2}) {
    const double skew = wrap_half(in_.prober.phase(b, reps) - in_.prober.phase(b - 1, reps) - 1.0 / g.spt);
    if (std::fabs(skew) < thr) return std::nullopt;
    g.skews.push_back(skew * g.spt);
    g.jump = std::min(g.jump, std::fabs(skew));
  }
  return g;
}

Grid SampledZones::scan_at(std::uint64_t x, const Grid& near) {
  in_.check_deadline();
  ++scans_;
  x = std::min(x, total_ - std::min<std::uint64_t>(total_, 4 * static_cast<std::uint64_t>(f_.spt0) + 2));
  if (auto q = quick_grid(x, near)) return *q;
  ++full_scans_;
  const double step_hint = 1.0 / near.spt;
  TrackScan s = scan_tracks(in_.prober, x, step_hint, 2);
  if (!s.exact) {
    // One late read can hide a boundary: once more, each phase from more reads.
    const int r = in_.prober.repeats();
    in_.prober.set_repeats(std::max(5, r + 2));
    s = scan_tracks(in_.prober, x, 1.0 / s.spt, 3);
    in_.prober.set_repeats(r);
  }
  if (!s.exact)
    throw TimingNoiseError(fmt::format("no two track boundaries found near LBA {} (the sampled zone search needs "
                                       "them: a track switch's skew)",
                                       x));
  Grid g = grid_of(s);
  if (g.jump < kJumpOverNoise * in_.prober.phase_noise()) {
    // A skew read from a late completion: once more, heavier.
    const int r = in_.prober.repeats();
    in_.prober.set_repeats(std::max(kSkewReads, r + 4));
    s = scan_tracks(in_.prober, x, 1.0 / s.spt, 3);
    in_.prober.set_repeats(r);
    if (s.exact) g = grid_of(s);
  }
  if (g.jump < kJumpOverNoise * in_.prober.phase_noise())
    throw TimingNoiseError(fmt::format("the track switches near LBA {} skew by {:.4f} turns, under {} times the "
                                       "completion jitter ({:.4f}): the sampled zone search cannot tell them",
                                       x, g.jump, kJumpOverNoise, in_.prober.phase_noise()));
  return g;
}

// Whether a track of grid g starts at x: the phase from x - 1 jumps by one of the skews
// the grid's scan saw (within half the smallest; a late read jumps it either way).
bool SampledZones::jump_at(const Grid& g, std::uint64_t x) {
  for (int k = 0; k < (careful_ ? 2 : 1); ++k) {
    in_.check_deadline();
    ++tests_;
    if (x < 1 || x + 1 >= total_) return false;
    const int reps = std::max(5, in_.prober.repeats());
    const double before = in_.prober.phase(x - 1, reps);
    const double d = wrap_half(in_.prober.phase(x, reps) - before - 1.0 / g.spt);
    const bool skewed = std::any_of(g.skews.begin(), g.skews.end(), [&](double skew) {
      return std::fabs(wrap_half(d - skew / g.spt)) < 0.5 * g.jump;
    });
    if (!skewed) return false;
  }
  return true;
}

// Sectors before LBA 0 on its cylinder (the heads step's empty front).
std::uint64_t SampledZones::front() const {
  std::uint64_t n = 0;
  for (const Hole& h : f_.result.layout.holes())
    if (h.kind == HoleKind::Front) n += h.count;
  return n;
}

// The one LBA in (lo, hi] that is a track start of c's grid and a cylinder start of zone
// ai (a track start where its first LBA is not known exactly), if only one is.
std::optional<std::uint64_t> SampledZones::only_candidate(std::size_t ai, const Grid& c, std::uint64_t lo,
                                                          std::uint64_t hi) const {
  const FoundZone& a = zones_[ai];
  const auto heads = static_cast<std::uint64_t>(std::max(1, f_.result.layout.heads));
  Grid cyl = a.g;
  if (a.exact) {
    cyl.spt = static_cast<std::uint32_t>(heads * a.g.spt);
    cyl.anchor = a.first_lba + (ai == 0 ? static_cast<std::uint64_t>(cyl.spt) - front() % cyl.spt : 0);
  }
  if ((hi - lo) / cyl.spt > 4'000'000) return std::nullopt;
  std::optional<std::uint64_t> found;
  for (std::uint64_t z = cyl.at_or_after(lo + 1); z <= hi; z += cyl.spt) {
    if (!c.holds(z)) continue;
    if (found) return std::nullopt;
    found = z;
  }
  return found;
}

// z is zone a's end and zone c's start: a's grid holds a track before it, c's a track on.
bool SampledZones::confirmed(const Grid& a, const Grid& c, std::uint64_t z) {
  if (z < a.spt + 1 || z + c.spt + 1 >= total_) return false;
  return jump_at(a, z - a.spt) && jump_at(c, z + c.spt);
}

// The boundary between zones_.back() (its grid holds at lo) and the zone of grid c (a
// track of it starts at hi), and of any zone found between, appended to zones_. A
// bisection that contradicts itself (a misread test) is done again from the start, each
// test then taken twice; the third time its end is taken as found, not exact.
void SampledZones::boundary(std::uint64_t lo, const Grid& c, std::uint64_t hi) {
  const std::size_t zones_before = zones_.size();
  const FoundZone a_before = zones_.back();
  for (int attempt = 0; attempt < 3; ++attempt) {
    careful_ = attempt > 0;
    const bool ok = bisect(lo, c, hi, attempt == 2);
    careful_ = false;
    if (ok) return;
    ++retries_;
    zones_.resize(zones_before);
    zones_.back() = a_before;
  }
}

// One bisection (boundary); false when it contradicts itself (unless `last`).
bool SampledZones::bisect(std::uint64_t lo, Grid c, std::uint64_t hi, bool last) {
  bool shortcut = true;
  while (true) {
    const std::size_t ai = zones_.size() - 1;
    const Grid a = zones_[ai].g;
    if (shortcut) {
      if (const auto z = only_candidate(ai, c, lo, hi)) {
        if (confirmed(a, c, *z)) {
          zones_.push_back({c, *z, true});
          return true;
        }
        shortcut = false;  // an irregular layout (or a misread): bisect to the end
      }
    }
    if (hi - lo <= a.spt) {
      const std::uint64_t z = std::min(hi, a.at_or_before(lo) + a.spt);
      if (!c.holds(z) && !last) return false;
      zones_.push_back({c, z, c.holds(z)});
      return true;
    }
    // (Test points on both grids tell nothing: on a 512e drive, whose tracks all start at
    // multiples of 8, one in some 240 is. Take the next track start instead.)
    const std::uint64_t mid = lo + (hi - lo) / 2;
    std::uint64_t pa = a.at_or_before(mid), pc = c.at_or_after(mid);
    if (c.holds(pa)) pa -= a.spt;
    if (a.holds(pc)) pc += c.spt;
    if (pa > lo && jump_at(a, pa)) {
      lo = pa;
      continue;
    }
    if (pc < hi && jump_at(c, pc)) {
      hi = pc;
      continue;
    }
    // Neither grid holds near mid: another zone lies between, or a grid moved (a slip).
    const Grid b = scan_at(mid, a);
    if (b.anchor >= hi) {
      if (!last) return false;  // the bracket was misread: mid is no zone between
      lo = mid;
    } else if (b.spt == a.spt) {
      zones_[ai].g.anchor = b.anchor;
      zones_[ai].exact = false;
      lo = b.anchor;
    } else if (b.spt == c.spt) {
      c.anchor = b.anchor;
      hi = b.anchor;
    } else {
      boundary(lo, b, b.anchor);
      lo = b.anchor;
    }
  }
}

void SampledZones::build_layout(std::uint64_t searched) {
  Layout& L = f_.result.layout;
  const auto heads = static_cast<std::uint64_t>(L.heads);
  const ZoneLayout z0 = L.zones.front();
  std::vector<ZoneLayout> out;
  std::int64_t cyl = z0.first_cylinder;
  std::uint64_t pba = z0.first_pba;
  int inexact = 0;
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    const FoundZone& fz = zones_[i];
    const bool last = i + 1 == zones_.size();
    const std::uint64_t end = last ? total_ : zones_[i + 1].first_lba;
    const std::uint64_t span = end - fz.first_lba + (i == 0 ? L.pba_of_lba(0) - z0.first_pba : 0);
    const std::uint64_t per = heads * fz.g.spt;
    std::uint64_t n = last ? (span + per - 1) / per : (span + per / 2) / per;
    if (!last && (span % per != 0 || !zones_[i + 1].exact)) ++inexact;
    ZoneLayout z = i == 0 ? z0 : ZoneLayout{};
    z.first_cylinder = cyl;
    z.first_pba = pba;
    z.spt = fz.g.spt;
    z.cylinders = static_cast<std::int64_t>(std::max<std::uint64_t>(1, n));
    if (i > 0) {
      z.track_skew = z.cylinder_skew = in_.first_skew(median(fz.g.skews));
    }
    out.push_back(z);
    cyl += z.cylinders;
    pba += static_cast<std::uint64_t>(z.cylinders) * per;
  }
  L.zones = out;
  for (const ZoneLayout& z : L.zones) f_.verified.insert(z.first_pba);
  f_.zones_unsearched = searched;
  f_.measured_end = searched >= total_ ? std::numeric_limits<std::int64_t>::max()
                                       : L.chs(L.pba_of_lba(searched)).cylinder;
  f_.zones_how = fmt::format("sampled: {} zones, track sizes measured at {} LBAs across the device, boundaries by "
                             "bisection ({} of {} exact: on both zones' track grids, whole cylinders)",
                             L.zones.size(), kSamples, static_cast<int>(L.zones.size()) - 1 - inexact,
                             L.zones.size() - 1);
}

// Zone zi's track and cylinder skews from kSkewSamples switches of each kind at spread
// places, each phase the earliest of kSkewReads reads: the skews step's few samples a zone
// (each of 7 reads) left them 10-11 sectors off on a 2.3 us sector in 4 of 40 runs. Where
// the zone's first LBA is not known exactly, cylinder starts are not either: every
// switch on its grid counts for both.
void SampledZones::zone_skews(std::size_t zi) {
  Layout& L = f_.result.layout;
  ZoneLayout& z = L.zones[zi];
  const FoundZone& fz = zones_[zi];
  const double step = 1.0 / z.spt;
  const bool placed = fz.exact && fz.g.holds(fz.first_lba) && z.cylinders >= 2;
  const std::uint64_t tracks = (zi + 1 < zones_.size() ? zones_[zi + 1].first_lba : total_) / z.spt -
                               fz.first_lba / z.spt;
  if (tracks < 4) return;
  std::vector<double> track, cyl;
  const int r = in_.prober.repeats();
  in_.prober.set_repeats(std::max(kSkewReads, r));
  for (int i = 0; i < kSkewSamples; ++i) {
    if (placed) {
      const auto c =
          z.first_cylinder + static_cast<std::int64_t>(in_.rand_below(static_cast<std::uint64_t>(z.cylinders - 1)));
      const std::uint64_t yc = L.lba(c + 1, 0, 0);
      if (yc + z.spt < total_) cyl.push_back(measure_skew(in_.prober, yc, step));
      if (L.heads < 2) continue;
      const auto h = static_cast<std::int32_t>(1 + in_.rand_below(static_cast<std::uint64_t>(L.heads - 1)));
      const std::uint64_t yt = L.lba(c, h, 0);
      if (yt + z.spt < total_) track.push_back(measure_skew(in_.prober, yt, step));
    } else {
      const std::uint64_t y = fz.g.at_or_after(fz.first_lba) + (1 + in_.rand_below(tracks - 2)) * z.spt;
      if (y + z.spt < total_) track.push_back(measure_skew(in_.prober, y, step));
    }
  }
  in_.prober.set_repeats(r);
  auto circular = [&](const std::vector<double>& v) { return std::round(circular_median_sectors(v, z.spt)) + 0.0; };
  if (!placed) cyl = track;
  if (cyl.empty()) return;
  z.cylinder_skew = circular(cyl);
  z.track_skew = track.empty() ? *z.cylinder_skew : circular(track);
}

void SampledZones::run() {
  const Layout& L = f_.result.layout;
  Grid near0;
  near0.spt = f_.spt0;
  const Grid g0 = f_.scan0.boundaries.empty() ? scan_at(0, near0) : grid_of(f_.scan0);
  zones_.push_back({g0, L.zone_first_lba(L.zones.front()), true});
  std::uint64_t last_in = g0.anchor, searched = total_;
  try {
    for (int k = 1; k <= kSamples; ++k) {
      const std::uint64_t x = k < kSamples ? total_ / kSamples * static_cast<std::uint64_t>(k)
                                           : total_ - 2 * static_cast<std::uint64_t>(zones_.back().g.spt) - 2;
      if (x <= last_in) continue;
      const Grid& a = zones_.back().g;
      const std::uint64_t p = a.at_or_before(x);
      // (Twice: a track start of another zone's grid may fall on this one's.)
      if (jump_at(a, p) && jump_at(a, p - a.spt)) {
        last_in = p;
      } else {
        const Grid c = scan_at(x, a);
        if (c.spt == a.spt) {
          zones_.back().g.anchor = c.anchor;  // the same zone, its tracks moved (slipped sectors)
          zones_.back().exact = false;
        } else {
          boundary(last_in, c, c.anchor);
        }
        last_in = std::max(last_in, c.anchor);
      }
      in_.tick(static_cast<double>(x) / static_cast<double>(total_));
    }
  } catch (const OutOfTime&) {
    searched = last_in;
    in_.note(fmt::format("zones: sampled to LBA {} ({:.0f} % of the device) before its time ran out; the last "
                         "zone found is taken to run to the end",
                         last_in, 100.0 * static_cast<double>(last_in) / static_cast<double>(total_)));
  }
  build_layout(searched);
  const Millis skews_start = in_.elapsed();
  for (std::size_t zi = 0; zi < f_.result.layout.zones.size(); ++zi) zone_skews(zi);
  f_.skews_sampled = true;
  const Millis skews_ms = in_.elapsed() - skews_start;
  in_.note(fmt::format("zones: the sampled search's {} track scans ({} of them full), {} grid tests ({} "
                       "bisections done again), and skews at {} switches a zone ({:.0f} s of it)",
                       scans_, full_scans_, tests_, retries_, 2 * kSkewSamples, skews_ms / 1000.0));
}

}  // namespace

bool zones_by_sampling(const Instrument& in, const Findings& f) {
  return f.boundaries_visible && f.step0 > 0 && in.prober.phase_noise() > kSampledZonesSectors * f.step0;
}

void find_zones_sampled(Instrument& in, Findings& f, double /*share*/) {
  in.step("zones");
  const Millis start = in.elapsed();
  in.deadline = kSampledZonesEnd * in.options.budget_ms;
  SampledZones z(in, f);
  z.run();
  in.deadline.reset();
  in.note(fmt::format("zones: {} found by sampling track sizes across the LBA space in {:.0f} s (the completion "
                      "jitter spans {:.0f} sectors: too many to walk cylinders); {}",
                      f.result.layout.zones.size(), (in.elapsed() - start) / 1000.0,
                      in.prober.phase_noise() / f.step0, f.zones_how));
  in.tick(1.0);
}

void find_zones_planned(Instrument& in, Findings& f, double share) {
  if (zones_by_sampling(in, f))
    find_zones_sampled(in, f, share);
  else
    find_zones(in, f, share);
}

}  // namespace disksched::extract
