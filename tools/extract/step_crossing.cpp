// The zones step's crossings (crossing.hpp).
#include "tools/extract/crossing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tools/extract/slips.hpp"
#include "tools/extract/stats.hpp"
#include "tools/extract/zone_search.hpp"

namespace disksched::extract {
namespace {

// t = p + q sqrt(x) by least squares over the points, once more without those off by
// more than 4 robust sigmas (a probe a late host delayed); nothing with fewer than three
// points or two distances.
struct SqrtFit {
  double p = 0, q = 0;
};
std::optional<SqrtFit> fit_sqrt(const std::vector<SeekPoint>& pts) {
  auto solve = [](const std::vector<SeekPoint>& v) -> std::optional<SqrtFit> {
    if (v.size() < 3) return std::nullopt;
    double ms = 0, mt = 0;
    for (const auto& p : v) ms += std::sqrt(static_cast<double>(p.distance)), mt += p.ms;
    ms /= static_cast<double>(v.size());
    mt /= static_cast<double>(v.size());
    double sxx = 0, sxy = 0;
    for (const auto& p : v) {
      const double s = std::sqrt(static_cast<double>(p.distance)) - ms;
      sxx += s * s;
      sxy += s * (p.ms - mt);
    }
    if (!(sxx > 1e-12)) return std::nullopt;
    SqrtFit f;
    f.q = sxy / sxx;
    f.p = mt - f.q * ms;
    return f;
  };
  auto f = solve(pts);
  if (!f) return f;
  std::vector<double> res;
  for (const auto& p : pts) res.push_back(p.ms - f->p - f->q * std::sqrt(static_cast<double>(p.distance)));
  const double cut = std::max(0.02, 4.0 * robust_sigma(res));
  std::vector<SeekPoint> kept;
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (std::fabs(res[i]) <= cut) kept.push_back(pts[i]);
  if (kept.size() == pts.size()) return f;
  auto g = solve(kept);
  return g ? g : f;
}


// How one seek is measured here, by the pairs and by the short crossings.
// On a noisy host a request that reaches the drive late turns a hit into a miss, and
// the bisection believes a miss after two in a row (misses_to_confirm at a few % of
// completions late): each threshold then sits up to a few hundredths of a millisecond
// high at random, a cylinder of seek here. Eight in a row halve the spread of a pair's
// difference (xing-probe with an exponential 0.08 ms issue delay: 0.042 -> 0.019 ms).
constexpr int kCrossingConfirm = 8;

// A seek's time in the short seeks' table: its one sample, or the mean of the two that
// agree best (a probe disturbed by the host reads a tenth of a millisecond or more off).
Millis value(const std::vector<Millis>& v) {
  if (v.size() == 1) return v[0];
  std::vector<Millis> w = v;
  std::sort(w.begin(), w.end());
  std::size_t i = 0;
  for (std::size_t j = 1; j + 1 < w.size(); ++j)
    if (w[j + 1] - w[j] < w[i + 1] - w[i]) i = j;
  return 0.5 * (w[i] + w[i + 1]);
}

bool disagree(const std::vector<Millis>& v) { return v.size() == 2 && std::fabs(v[0] - v[1]) > 0.05; }

// Each crossing at least this many cylinders long, past the short seeks' settling steps.
constexpr std::int64_t kFar = 12;

// The finest resolution a crossing's reach thresholds are bisected to.
constexpr Millis kFinest = 0.0005;

}  // namespace

std::int64_t ZoneSearch::crossing_distance(const ZoneLayout& z, std::int64_t c, std::uint64_t next,
                                           std::uint32_t next_spt) {
  ++spent_.crossings;
  const Timed timed(in_, spent_.crossing_ms);
  Crossing crossing(in_, f_, z, c, next, next_spt,
                    CrossingBudget{[this] { return zones_over_share(); }, crossings_cut_, kCloseCallsEnd});
  return crossing.count();
}

Crossing::Crossing(Instrument& in, Findings& f, const ZoneLayout& zone, std::int64_t last, std::uint64_t next_lba,
                   std::uint32_t spt, CrossingBudget budget)
    : in_(in),
      f_(f),
      L(f.result.layout),
      z(zone),
      c(last),
      next(next_lba),
      next_spt(spt),
      budget_(std::move(budget)),
      first_(zone.first_cylinder),
      res_(in.options.resolution_ms) {
  while (first_ < c && !L.has_data(first_, 0)) ++first_;
  room_ = c - first_;
}

std::int64_t Crossing::count() {
  if (room_ < 3) return 1;
  // Next door or not: seeks of one and two cylinders differ the most. (Not where they
  // differ by under twice the thresholds' resolution, sas15k's 6 us: the pairs tell.)
  const Millis next_door = cross(0);
  if (has_head0(c - 1) && has_head0(c - 2)) {
    const Millis one = at(1);
    const Millis two = at(2);
    if (two - one >= 2.0 * in_.options.resolution_ms && next_door < 0.5 * (one + two)) return 1;
  }
  const std::int64_t d0 = first_count();
  choose_resolution(d0);
  // A drive that reads ahead reads on after src to the end of its track and then
  // switches to the next: a read that arrives during that switch waits for it (up to
  // a head switch, 0.89 ms on the C2247A; the emulated drive does as DiskSim does), so
  // a destination whose threshold falls just after src's track end reads long: in
  // virtual time without noise a pair in four or five came out 2-10 cylinders off
  // (zone 3's crossing from 8 cylinders in read 0.33 ms long, as diskemu's trace
  // shows in real time). The completion phase of src's track end is read, and each
  // destination moved along its track (its phase with it) until the moment its read
  // is issued at the threshold is clear of that end (track_end, clear_of).
  ahead_ = in_.defeat && f_.result.cache.read_ahead;
  T_ = in_.prober.period();
  hs_ = f_.head_switch > 0 ? f_.head_switch : 1.0;
  if (const auto k = short_table(d0)) return *k;
  return paired_rounds(d0);
}

// The crossing's reach thresholds are bisected to a quarter of a cylinder's seek near the
// pairs' lengths (0.5 us at least), or the run's resolution (10 us) where that is finer:
// a threshold is off by up to half its resolution, a pair's difference by up to all of
// it. Bisected to 10 us, sas15k's seeks (1.7 us a cylinder at 15) came out equal inside
// the zone and into the next, and every pair read back the first count it was measured
// at: zone 4's 1 cylinder as 2, "+- 0.00"; the C2247A's (0.03 ms a cylinder at 35)
// once read zone 0's 25 as 24.20, 24.63, 24.22, 24.23 (busy, extract-late). The slope is the
// curve t = p + q sqrt(x) through the seeks inside the zone from kFar on (three more
// measured, kFar + 2 to four times it, when there are too few).
void Crossing::choose_resolution(std::int64_t d0) {
  const Millis coarse = in_.options.resolution_ms;
  auto far_points = [&] {
    std::vector<SeekPoint> pts;
    for (const auto& p : f_.inside_seeks)
      if (p.distance >= kFar) pts.push_back(p);
    return pts;
  };
  std::vector<SeekPoint> pts = far_points();
  std::optional<SqrtFit> fit = fit_sqrt(pts);
  if (!fit) {
    for (const std::int64_t x : {kFar + 2, 2 * (kFar + 2), 4 * (kFar + 2)})
      if (x <= room_ && has_head0(c - x)) at(x);
    pts = far_points();
    fit = fit_sqrt(pts);
  }
  if (!fit) return;
  const double x = static_cast<double>(std::max(kFar + 2, d0) + 12);
  const Millis per_cylinder = std::max(0.0, fit->q) / (2.0 * std::sqrt(x));
  res_ = std::clamp(per_cylinder / 4.0, kFinest, coarse);
}

Crossing::SeekGuess Crossing::seek_guess(std::int64_t dist) const {
  const SeekPoint* best = nullptr;
  for (const auto& p : f_.result.seek_points)
    if (!best || std::llabs(p.distance - dist) < std::llabs(best->distance - dist)) best = &p;
  return best ? SeekGuess{best->ms, std::llabs(best->distance - dist) <= 2} : SeekGuess{};
}

// Every seek here is taken as the crossing is: outwards (towards the next zone), from
// head 0 to head 0, the destination's phase read from the destination itself. Inside
// the zone a seek of x cylinders ends on its last cylinder c; the crossing starts a
// cylinders in from c and ends on the next zone's first track. A seek costs the same
// in every zone, so the seeks measured at other zones' ends count here too (each
// sample kept: a robust fit, not the shortest, takes the noise out).
// (A head whose tracks hold data at both ends, head 0 where it does: a slipped track
// holds none.)
std::optional<std::int32_t> Crossing::head_at(std::int64_t cyl) const {
  if (cyl < first_) return std::nullopt;
  for (std::int32_t h = 0; h < L.heads; ++h)
    if (L.has_data(cyl, h) && L.has_data(c, h)) return h;
  return std::nullopt;
}

Millis Crossing::inside(std::int64_t x) {
  in_.check_deadline();
  const std::int32_t h = head_at(c - x).value_or(0);
  const Millis ms =
      in_.move_time(L.lba(c - x, h, sector(z.spt)), L.lba(c, h, sector(z.spt)), z.spt, guess(x), f_.result.dead_time_ms, res_);
  f_.result.seek_points.push_back({x, ms});
  f_.inside_seeks.push_back({x, ms});
  return ms;
}

// The mean of the samples at x, measured when there is none.
Millis Crossing::at(std::int64_t x) {
  double sum = 0;
  int n = 0;
  for (const auto& p : f_.inside_seeks)
    if (p.distance == x) sum += p.ms, ++n;
  return n > 0 ? sum / n : inside(x);
}

Millis Crossing::cross(std::int64_t a) {
  in_.check_deadline();
  // (Its distance is what is sought: a guess from the spare cylinders just found.)
  const Millis ms = in_.move_time(L.lba(c - a, head_at(c - a).value_or(0), sector(z.spt)), next + sector(next_spt), next_spt,
                                  guess(a + 1 + f_.last_spare_cylinders), f_.result.dead_time_ms, res_);
  crossings_.emplace_back(a, ms);
  return ms;
}

// A destination's phase from `reps` reads (0: the prober's): behind a cache defeat, of
// the sectors of its track (track_phase): the next zone's first track (taken to hold no
// slipped sector, as next_track does), or one of this zone's as the layout has it.
double Crossing::dst_phase(std::uint64_t y, int reps) {
  if (y >= next && y < next + next_spt)
    return track_phase(in_, y, reps, next_spt, [this, y](std::uint64_t x) -> std::optional<double> {
      if (x < next || x >= next + next_spt || x >= in_.target.sectors()) return std::nullopt;
      return static_cast<double>(x) - static_cast<double>(y);
    });
  return layout_phase(in_, L, y, reps);
}

// The completion phase of the end of src's track (its last sector that holds data).
double Crossing::track_end(std::uint64_t src) {
  const Chs3 t = L.chs(L.pba_of_lba(src));
  const std::uint32_t n = L.spt_of_cylinder(t.cylinder);
  std::uint32_t last = n - 1;
  while (last > 0 && L.is_slipped(L.pba(t.cylinder, t.head, last))) --last;
  in_.check_deadline();
  // (A few tenths of a millisecond is close enough: three reads, not a phase's many.)
  const double ph = dst_phase(L.lba(t.cylinder, t.head, last), std::min(3, in_.prober.repeats()));
  return wrap_unit(ph + static_cast<double>(n - 1 - last) / n);
}

// Moves m's destination (sector s0 of its track, phase ph) to the nearest sector whose
// read is clear of src's track end (`end`); lba_at(s) is sector s's LBA, none when it
// holds no data. Not clear: the read issued from a millisecond before that end to a
// head switch and 0.3 ms after it (the end's completion phase lags the media by the
// bus and the completion; the threshold is known to a few tenths) waits for the switch.
void Crossing::clear_of(Instrument::Move& m, double& ph, std::uint32_t spt, std::int64_t dist, double end,
                        std::uint32_t s0, const LbaAt& lba_at) {
  const Millis T = T_, hs = hs_;
  const Millis slack = in_.tau(spt) + f_.result.dead_time_ms + seek_guess(dist).ms;
  for (std::int64_t k = 0; k < spt / 2; ++k)
    for (const std::int64_t j : {k, -k}) {
      const std::int64_t s = static_cast<std::int64_t>(s0) + j;
      if (s < 0 || s >= static_cast<std::int64_t>(spt)) continue;
      const Millis off = wrap_half(ph + static_cast<double>(j) / spt - slack / T - end) * T;
      if (off > -1.0 && off < hs + 0.3) continue;
      const std::optional<std::uint64_t> lba = lba_at(static_cast<std::uint32_t>(s));
      if (!lba) continue;
      if (j != 0) {
        m.dst = *lba;
        ph = wrap_unit(ph + static_cast<double>(j) / spt);
      }
      return;
    }
}

// The destinations' tracks, sector by sector (clear_of's lba_at): head h of cylinder c
// (a slipped sector holds no data), and the next zone's first track (taken to hold no
// slipped sector).
Crossing::LbaAt Crossing::end_track(std::int32_t h) {
  return [this, h](std::uint32_t k) -> std::optional<std::uint64_t> {
    if (L.is_slipped(L.pba(c, h, k))) return std::nullopt;
    return L.lba(c, h, k);
  };
}

Crossing::LbaAt Crossing::next_track() {
  return [this](std::uint32_t k) -> std::optional<std::uint64_t> { return next + k; };
}

Millis Crossing::threshold(const Instrument::Move& m, double ph, std::uint32_t spt, std::int64_t dist) {
  in_.check_deadline();
  // (Near lengths already measured, a cylinder or two away: the bisection starts
  // 0.25 ms either side, not 0.7 below and 0.6 above.)
  const SeekGuess g = seek_guess(dist);
  const Millis base = in_.tau(spt) + f_.result.dead_time_ms;
  const Millis lo = g.near ? g.ms - 0.25 : g.ms - 0.7, hi = g.near ? g.ms + 0.25 : g.ms + 0.6;
  return in_.prober.reach_threshold(m.src, m.dst, ph, base + std::max(0.0, lo), base + hi, res_,
                                    in_.votes, Op::Read, kCrossingConfirm) -
         base;
}

// Spare cylinders between. Far out a cylinder is a few hundredths of a millisecond of
// seek (0.03 ms at 35 cylinders on the C2247A), about the probes' noise, so no single
// pair of seeks decides it: the seeks inside the zone around the crossing's length
// are fitted (t = p + q sqrt(x), the shape of any seek curve past its settling steps,
// locally), and crossings from several cylinders in are each read off that curve as a
// number of cylinders; their median, less the offset, is the count.
// A first count: from a cylinders in, clear of the short seeks' settling steps (the
// C2247A's 6- and 8-cylinder seeks take the same time), by galloping and bisection.
std::int64_t Crossing::first_count() {
  const std::int64_t a0 = std::min<std::int64_t>(10, room_ / 3);
  const std::int64_t dmax = room_ - a0;
  const Millis f_a0 = cross(a0);
  constexpr std::int64_t kFar0 = 12;
  std::int64_t d0 = 0;
  {
    // Seeks from earlier zones' ends already cover the range: read it off their curve.
    std::vector<SeekPoint> pts;
    for (const auto& p : f_.inside_seeks)
      if (p.distance >= kFar0) pts.push_back(p);
    const auto fit = fit_sqrt(pts);
    if (fit && fit->q > 0) {
      const double x = std::pow((f_a0 - fit->p) / fit->q, 2.0);
      std::int64_t lo_x = std::numeric_limits<std::int64_t>::max(), hi_x = 0;
      for (const auto& p : pts) lo_x = std::min(lo_x, p.distance), hi_x = std::max(hi_x, p.distance);
      if (x >= static_cast<double>(lo_x) - 4 && x <= static_cast<double>(hi_x) + 4)
        d0 = std::clamp<std::int64_t>(std::llround(x) - a0, 1, dmax);
    }
  }
  if (d0 == 0) {
    std::int64_t lo = 1, hi = 2;
    while (at(a0 + hi) < f_a0 && hi < dmax) {
      lo = hi;
      hi = std::min(dmax, 2 * hi);
    }
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (at(a0 + mid) < f_a0 ? lo : hi) = mid;
    }
    d0 = hi;
  }
  return d0;
}

// Few spare cylinders: the crossings fall among the short seeks' settling steps, where
// a cylinder more costs 0.1-0.4 ms on the C2247A (five to ten times what a pair of
// probes scatters by in real time, against a hundredth of a millisecond at 30
// cylinders) but not in step with distance (its 6- and 8-cylinder seeks take the same
// time, its 7-cylinder seek less). No curve reads them; a table does. The seeks from
// 0, 1 and 2 cylinders in are each set against the seeks inside the zone of every
// length they could be, and the count is the one under which all three match, when it
// matches clearly better than any other; else the pairs (paired_rounds) decide.
std::optional<std::int64_t> Crossing::short_table(std::int64_t d0) {
  constexpr std::int64_t kShortMax = 10;
  if (!(d0 <= kShortMax && room_ >= d0 + 8)) return std::nullopt;
  Table t;
  t.lo = std::max<std::int64_t>(1, d0 - 2), t.hi = d0 + 2;  // the counts tried
  auto at_edge = [&] { return (t.fits[0].second == t.lo && t.lo > 1) || t.fits[0].second == t.hi; };
  for (int round = 0; round < 4; ++round) {
    if (round == 0) {
      if (!table_first_round(t, d0)) break;
    } else if (at_edge()) {
      // The best count at the edge of those tried: the first count was off (busy
      // virtual time: 8 for 5, a single seek 0.1 ms long). Two more counts each side.
      t.lo = std::max<std::int64_t>(1, t.lo - 2);
      t.hi += 2;
    } else {
      table_again(t, d0);
    }
    table_fit(t);
    if (table_sure(t) || t.fits.size() < 3 || in_.elapsed() > budget_.close_calls_end * in_.options.budget_ms) break;
  }
  if (table_sure(t)) return table_count(t);
  const auto& fits = t.fits;
  if (!t.steep)
    in_.note(fmt::format("cylinder {}: the seeks inside the zone near {} cylinders differ by less than 0.07 ms a "
                         "cylinder: the pairs decide",
                         c, d0));
  else
    in_.note(fmt::format("cylinder {}: the short seeks into the next zone match no count clearly (best {} cylinders "
                         "on at {:.3f} ms RMS, then {} at {:.3f} ms): the pairs decide",
                         c, fits.empty() ? 0 : fits[0].second, fits.empty() ? 0.0 : fits[0].first,
                         fits.size() < 2 ? 0 : fits[1].second, fits.size() < 2 ? 0.0 : fits[1].first));
  return std::nullopt;
}

// One seek measured on its own: its destination's phase read twice back to back
// (their mean), and moved clear of src's track end, as the pairs do.
Millis Crossing::table_measure(std::uint64_t src, std::uint64_t dst, std::uint32_t src_spt, std::uint32_t dst_spt,
                               std::uint32_t s0, std::int64_t dist, const LbaAt& lba_at) {
  Instrument::Move m = in_.oriented({src, dst});
  const bool forward = m.src == src;
  const double end = ahead_ && forward ? track_end(m.src) : 0.0;
  in_.check_deadline();
  const double p1 = dst_phase(m.dst, 0);
  const double p2 = dst_phase(m.dst, 0);
  double ph = mid_phase(p1, p2);
  if (ahead_ && forward) clear_of(m, ph, dst_spt, dist, end, s0, lba_at);
  return threshold(m, ph, forward ? dst_spt : src_spt, dist);
}

void Crossing::table_cross_at(Table& t, std::int64_t a, std::int64_t d0) {
  const std::uint32_t s = sector(next_spt);
  t.out[a].push_back(table_measure(L.lba(c - a, 0, sector(z.spt)), next + s, z.spt, next_spt, s, a + d0, next_track()));
}

void Crossing::table_inside_at(Table& t, std::int64_t x) {
  const std::int32_t h = *head_at(c - x);
  const std::uint32_t s_in = sector(z.spt);
  const Millis ms =
      table_measure(L.lba(c - x, h, sector(z.spt)), L.lba(c, h, s_in), z.spt, z.spt, s_in, x, end_track(h));
  t.in[x].push_back(ms);
  f_.result.seek_points.push_back({x, ms});
  f_.inside_seeks.push_back({x, ms});
}

// Where seeks a cylinder apart differ by less than about twice the noise, a table reads
// the count no better than the curve: three seeks inside and one crossing tell, before
// the rest is measured (on the C2247A, zone 1's 10). False: the table cannot tell.
bool Crossing::table_first_round(Table& t, std::int64_t d0) {
  if (!(L.has_data(c, 0) && has_head0(c - d0 - 1))) return false;
  table_cross_at(t, 0, d0);
  for (std::int64_t x = std::max<std::int64_t>(1, d0 - 1); x <= d0 + 1; ++x)
    if (has_head0(c - x)) table_inside_at(t, x);
  auto is_steep = [&] {
    bool st = t.in.size() == 3;
    for (auto it = t.in.begin(); st && std::next(it) != t.in.end(); ++it)
      st = std::fabs(value(std::next(it)->second) - value(it->second)) >= 0.07;
    return st;
  };
  // (Flat by one reading: read once more, a disturbed probe reads 0.1 ms off; real
  // time once read zone 4's 3-, 4- and 5-cylinder seeks, 0.17 and 0.29 ms apart, as
  // flat.)
  t.steep = is_steep();
  if (!t.steep && t.in.size() == 3) {
    for (const auto& [x, v] : std::map(t.in)) table_inside_at(t, x);
    t.steep = is_steep();
  }
  if (!t.steep) return false;
  for (std::int64_t a = 0; a <= 2; ++a)
    if (!t.out.count(a) && L.has_data(c - a, 0) && L.has_data(c, 0)) table_cross_at(t, a, d0);
  return true;
}

// A misfit beyond the noise (some probe was disturbed) or a next best too near (the
// table is flat there, and its noise decides): every seek is measured again, and a
// third time where its two samples disagree.
void Crossing::table_again(Table& t, std::int64_t d0) {
  for (const auto& [a, v] : std::map(t.out)) table_cross_at(t, a, d0);
  for (const auto& [x, v] : std::map(t.in)) table_inside_at(t, x);
  for (const auto& [a, v] : std::map(t.out))
    if (disagree(v)) table_cross_at(t, a, d0);
  for (const auto& [x, v] : std::map(t.in))
    if (disagree(v)) table_inside_at(t, x);
}

// The seeks inside for every count tried, and each count's misfit: the RMS of the
// crossings less the seeks inside as long.
void Crossing::table_fit(Table& t) {
  for (const auto& [a, v] : t.out)
    for (std::int64_t x = a + t.lo; x <= a + t.hi; ++x)
      if (!t.in.count(x) && has_head0(c - x)) table_inside_at(t, x);
  t.fits.clear();
  for (std::int64_t k = t.lo; k <= t.hi; ++k) {
    double sq = 0;
    int n = 0;
    for (const auto& [a, v] : t.out)
      if (t.in.count(a + k)) sq += std::pow(value(v) - value(t.in[a + k]), 2.0), ++n;
    if (n == static_cast<int>(t.out.size()) && n >= 2) t.fits.emplace_back(std::sqrt(sq / n), k);
  }
  std::sort(t.fits.begin(), t.fits.end());
}

// Sure: the best within the noise (or a little more), the best a hundred times likelier
// than the next under it (or the best's own misfit, when larger), and not at the edge
// of the counts tried (one past it could fit better still). A flat table (zone 1's 10
// on the C2247A, its next count 0.04 ms RMS worse) needs more samples than a steep one.
bool Crossing::table_sure(const Table& t) const {
  const auto& fits = t.fits;
  if (fits.size() < 3 || fits[0].first > 0.08) return false;
  // The noise of a crossing less a seek inside when each is the mean of m samples: a
  // pair of probes scatters by 0.035 ms in real time (a disturbed one by 0.1 or more).
  std::size_t m = 99;
  for (const auto& [a, v] : t.out) m = std::min(m, v.size());
  for (const auto& [x, v] : t.in) m = std::min(m, v.size());
  const double noise2 = 0.035 * 0.035 / static_cast<double>(m);
  const double s2 = std::max(noise2, fits[0].first * fits[0].first);
  const double n = static_cast<double>(t.out.size());
  const double gap = n * (fits[1].first * fits[1].first - fits[0].first * fits[0].first);
  return gap / (2.0 * s2) >= std::log(100.0) && (fits[0].second > t.lo || t.lo == 1) && fits[0].second < t.hi;
}

std::int64_t Crossing::table_count(const Table& t) {
  const auto& fits = t.fits;
  const auto& in = t.in;
  const std::int64_t k = fits[0].second;
  std::vector<std::int64_t> alone;  // each crossing's nearest seek inside, less its offset
  for (const auto& [a, v] : t.out) {
    std::int64_t best = 0;
    for (const auto& [x, s] : in)
      if (best == 0 || std::fabs(value(s) - value(v)) < std::fabs(value(in.at(best)) - value(v))) best = x;
    alone.push_back(best - a);
  }
  in_.note(fmt::format("cylinder {}: {} seeks into the next zone from 0 to 2 cylinders in, set against {} seeks "
                       "inside the zone of {} to {} cylinders, match them best {} cylinders on ({:.3f} ms RMS; "
                       "{} cylinders on {:.3f} ms) (each crossing alone: {})",
                       c, t.out.size(), in.size(), in.begin()->first, in.rbegin()->first, k, fits[0].first,
                       fits[1].second, fits[1].first, fmt::join(alone, ", ")));
  for (const auto& [a, v] : t.out)
    for (const Millis ms : v) f_.result.seek_points.push_back({a + k, ms});
  f_.last_spare_cylinders = k - 1;
  return k;
}

// The offsets: each crossing at least kFar cylinders long (past the settling steps),
// three cylinders apart, all inside the zone with room for the seeks around them.
//
// Each crossing is read against a seek inside the zone about as long measured with it:
// a real-time host's timing wanders by a few hundredths of a millisecond over seconds,
// a cylinder's worth of seek here, so crossings set against seeks measured a minute
// before (at an earlier zone's end) came out a cylinder or two off, all alike (the
// real-time runs: 23 for 25 +- 0.52, 11 for 10 +- 0.01). The curve's shape comes
// from every seek inside the zone near those lengths, its height at each crossing
// from the seek measured with it.
std::int64_t Crossing::paired_rounds(std::int64_t d0) {
  Rounds r;
  r.est = static_cast<double>(d0);
  r.d = d0;
  // Past the zones step's share of the budget: two offsets, not four, and one more round
  // for a close call (their two counts apart), not three.
  const bool short_of_time = budget_.over_share();
  if (short_of_time) ++budget_.cut;
  for (int round = 0; round < 4 && !r.sure; ++round) {
    pair_offsets(r, round, short_of_time);
    for (std::int64_t a : r.offsets) measure_pair(r, a);
    if (r.paired.empty()) break;
    const std::optional<bool> moved = read_pairs(r, round);
    if (!moved) break;
    // A close call keeps its rounds while the run is short of close_calls_end of its
    // budget, past the zones step's share or not: every crossing counted wrong in
    // virtual time with --noise busy was one (`may be off by one` in paired_count), and
    // the steps after the zones step need less than the rest.
    if (!r.sure && !*moved && round >= 1 && budget_.over_share() &&
        in_.elapsed() > budget_.close_calls_end * in_.options.budget_ms) {
      if (!short_of_time) ++budget_.cut;
      break;
    }
  }
  return paired_count(r);
}

void Crossing::pair_offsets(Rounds& r, int round, bool short_of_time) {
  // (Two cylinders clear of kFar: a count one or two too many must not bring the
  // crossings down among the short seeks' settling steps.)
  const std::int64_t room = room_, d = r.d;
  const std::int64_t a_lo = std::min(room, std::max<std::int64_t>(0, kFar + 2 - d));
  r.offsets.clear();
  // (Each round a cylinder further in than the last: a cylinder whose crossing reads
  // wrong is not measured twice.)
  for (std::int64_t k = 0; k < (short_of_time ? 2 : 4); ++k) {
    const std::int64_t a = std::min(room, a_lo + 3 * k + round % 3);
    if (k == 0 || a + d + 4 <= room) r.offsets.push_back(a);
  }
}

// The crossing from a cylinders in with a seek inside the zone of about its length (the
// curve's height there). A reach threshold moves with the host's delay when its
// destination's phase was read (the probes after aim at that phase), so the crossing's
// phase is read between two reads of the inside seek's, which aims at their mean: to
// first order both aim with the host's delay of one moment, whatever its drift.
void Crossing::measure_pair(Rounds& r, std::int64_t a) {
  const std::int64_t room = room_, first = first_, d = r.d;
  // The crossing ends on head 0 (the next zone's first track) and must start there
  // too: from another head (a slipped track on head 0) it costs a head switch more,
  // 0.3 ms on the C2247A, which read as five cylinders.
  for (std::int64_t t : {a, a + 1, a - 1})
    if (t >= 0 && t <= room && c - t >= first && L.has_data(c - t, 0) && L.has_data(c, 0)) {
      a = t;
      break;
    }
  if (!(c - a >= first && L.has_data(c - a, 0) && L.has_data(c, 0))) return;
  std::int64_t x = std::clamp<std::int64_t>(a + d, 1, room);
  while (x < room && !has_head0(c - x)) ++x;
  if (!has_head0(c - x)) return;
  const std::int32_t h = head_at(c - x).value_or(0);
  const std::uint64_t in_src = L.lba(c - x, h, sector(z.spt));
  const std::uint32_t in_s = sector(z.spt);
  const std::uint64_t cr_src = L.lba(c - a, head_at(c - a).value_or(0), sector(z.spt));
  const std::uint32_t cr_s = sector(next_spt);
  Instrument::Move in = in_.oriented({in_src, L.lba(c, h, in_s)});
  Instrument::Move cr = in_.oriented({cr_src, next + cr_s});
  const bool in_ahead = ahead_ && in.src == in_src, cr_ahead = ahead_ && cr.src == cr_src;
  const double in_end = in_ahead ? track_end(in.src) : 0.0;
  const double cr_end = cr_ahead ? track_end(cr.src) : 0.0;
  in_.check_deadline();
  // (Each read twice, in1 cr1 cr2 in2, so both means fall at one moment: a threshold
  // is off by as much as its destination's phase, and one phase read on a late host
  // is off by a few hundredths of a millisecond, a cylinder here.)
  const double in1 = dst_phase(in.dst, 0);
  const double cr1 = dst_phase(cr.dst, 0);
  const double cr2 = dst_phase(cr.dst, 0);
  const double in2 = dst_phase(in.dst, 0);
  double ph_in = mid_phase(in1, in2);
  double ph_cr = mid_phase(cr1, cr2);
  if (in_ahead) clear_of(in, ph_in, z.spt, x, in_end, in_s, end_track(h));
  if (cr_ahead) clear_of(cr, ph_cr, next_spt, a + d, cr_end, cr_s, next_track());
  const Millis ms_in = threshold(in, ph_in, z.spt, x);
  // (Measured the other way round, its destination is this zone's track.)
  const Millis ms_cr = threshold(cr, ph_cr, cr.src == cr_src ? next_spt : z.spt, a + d);
  f_.result.seek_points.push_back({x, ms_in});
  f_.inside_seeks.push_back({x, ms_in});
  crossings_.emplace_back(a, ms_cr);
  r.paired.push_back({a, x, ms_cr, ms_in});
}

// The curve near the crossings' lengths (its shape), and each crossing read off it
// raised or lowered to the seek measured with it: the count, its spread, and whether
// it is sure. Whether the count moved (paired with seeks of another length); nothing
// when the seeks inside do not grow with distance there.
std::optional<bool> Crossing::read_pairs(Rounds& r, int round) {
  const std::int64_t room = room_;
  std::int64_t x_lo = room, x_hi = 0;
  for (const auto& b : r.paired) x_lo = std::min(x_lo, b.x), x_hi = std::max(x_hi, b.x);
  std::vector<SeekPoint> pts;
  for (const auto& p : f_.inside_seeks)
    if (p.distance >= std::min(x_lo, std::max(kFar, x_lo - 2)) && p.distance <= x_hi + 2) pts.push_back(p);
  const auto fit = fit_sqrt(pts);
  if (!fit || !(fit->q > 0)) {
    in_.note(fmt::format("cylinder {}: the seeks inside the zone do not grow with distance near {} cylinders; "
                         "its spare cylinders are counted from one seek",
                         c, r.offsets.front() + r.d));
    return std::nullopt;
  }
  auto f = [&](std::int64_t x) { return fit->p + fit->q * std::sqrt(static_cast<double>(x)); };
  std::vector<double> ds;
  for (const auto& b : r.paired) {
    const double lift = b.ms_in - f(b.x);
    ds.push_back(std::pow(std::max(0.0, (b.ms - lift - fit->p) / fit->q), 2.0) - static_cast<double>(b.a));
  }
  r.read = ds;
  r.est = median(ds);
  // (A first round's few pairs by their plain deviation too: a robust one of four hides
  // one pair off, and real time read zone 5's 8 as 9 from 7.62, 8.82, 9.08, 9.02,
  // "+- 0.10"; with their plain deviation, +- 0.33, a second round is taken.)
  double sigma = ds.size() > 1 ? robust_sigma(ds) : 0.0;
  if (round == 0 && ds.size() > 1) sigma = std::max(sigma, sample_sigma(ds));
  r.spread = ds.size() > 1 ? sigma / std::sqrt(static_cast<double>(ds.size())) : 1.0;
  // Two counts more than a cylinder apart are one of them wrong (seen: a crossing 0.3 ms
  // long in virtual time too): their mean is no count to measure the next round at.
  const bool split = ds.size() == 2 && std::fabs(ds[0] - ds[1]) > 1.0;
  const std::int64_t nd =
      split ? r.d : std::clamp<std::int64_t>(std::llround(r.est), 1, std::max<std::int64_t>(1, room));
  const bool moved = std::llabs(nd - r.d) > 2;  // paired with seeks of another length
  r.d = nd;
  const std::int64_t d = r.d;
  r.ms_a_cylinder = fit->q / (2.0 * std::sqrt(std::max(1.0, 0.5 * static_cast<double>(x_lo + x_hi))));
  // A crossing that at the new count is shorter than kFar lies among the short seeks'
  // settling steps, off the curve: its pair is not read again (seen: a first count of 9
  // for zone 2's 5 put a crossing at 10 cylinders, read as 7.8).
  if (moved) std::erase_if(r.paired, [&](const Paired& b) { return b.a + d < kFar; });
  // Sure when the estimate sits near a whole count, clearly so for its spread.
  r.sure = !moved && std::fabs(r.est - static_cast<double>(d)) < 0.3 &&
           std::fabs(r.est - static_cast<double>(d)) + 2.0 * r.spread < 0.5;
  return moved;
}

std::int64_t Crossing::paired_count(Rounds& r) {
  const std::int64_t room = room_, d = r.d;
  if (!r.sure)
    in_.note(fmt::format("cylinder {}: the seeks into the next zone put it {:.2f} cylinders on (+- {:.2f}): its "
                         "spare cylinders may be off by one",
                         c, r.est, r.spread));
  if (d >= room)
    in_.note(fmt::format("the seek from cylinder {} into the next zone is as long as any inside its zone: its spare "
                         "tracks are counted as {} cylinders at most",
                         c, room));
  in_.note(fmt::format("cylinder {}: {} seeks into the next zone from {} to {} cylinders in, {} of them each with a "
                       "seek inside the zone about as long, read off {} seeks inside the zone, put it {:.2f} cylinders "
                       "on (+- {:.2f}): {} cylinders on (the pairs read {:.2f})",
                       c, crossings_.size(), r.offsets.empty() ? 0 : r.offsets.front(),
                       r.offsets.empty() ? 0 : r.offsets.back(), r.paired.size(), f_.inside_seeks.size(), r.est,
                       r.spread, d, fmt::join(r.read, ", ")));
  // Spare cylinders that lengthen a seek by less than twice the resolution of its reach
  // thresholds (res_: choose_resolution) cannot be told from seeks: not believed.
  // (A count of 1, none spare, is then as unsure, but it is what such a drive has.)
  const Millis spares_ms = static_cast<double>(d - 1) * r.ms_a_cylinder;
  const Millis tell_ms = 2.0 * res_;
  if (d > 1 && r.ms_a_cylinder > 0 && spares_ms < tell_ms)
    f_.crossings_unresolved.push_back(fmt::format(
        "cylinder {}: the seeks into the next zone put it {} cylinders on ({} spare), but there the spare "
        "cylinders lengthen a seek by {:.4f} ms, under twice the reach thresholds' resolution ({:.4f} ms): "
        "seeks cannot tell them",
        c, d, d - 1, spares_ms, tell_ms));
  for (const auto& [a, ms] : crossings_) f_.result.seek_points.push_back({a + d, ms});
  f_.last_spare_cylinders = d - 1;
  return d;
}

}  // namespace disksched::extract
