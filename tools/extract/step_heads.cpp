// The heads step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/slips.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

namespace {

// Walked boundaries (each a track switch until heads are known) of tracks shorter than
// the rest hold slipped sectors: find them, so that the boundary skews can be corrected
// for the holes next to them. `checked`: the boundaries done so far.
void correct_for_slips(Findings& f, SlipSearch& slips, std::vector<Boundary>& walk,
                       std::size_t& checked) {
  Layout& L = f.result.layout;
  for (; checked < walk.size(); ++checked) {
    const std::uint64_t next = (checked + 1) * f.spt0;
    const std::uint64_t want_lba = walk[checked].lba;
    if (L.lba_of_pba(next) != want_lba) {
      if (L.lba_of_pba(next) < want_lba)
        throw std::runtime_error(fmt::format(
            "track {} is longer than {} sectors (it ends at LBA {}): spare sectors or an "
            "irregular layout",
            checked, f.spt0, want_lba));
      slips.localize_track(checked * f.spt0, [&] { return L.lba_of_pba(next) == want_lba; });
    }
    walk[checked].skew -= gap_before(f.result.layout, walk[checked].lba);
  }
}

// Two kinds of skew but no period: a noisy read spoiled one. Measure them all again
// with more reads each.
BoundaryClasses remeasure_skews(Instrument& in, Findings& f, std::vector<Boundary>& walk, double noise_sectors) {
  std::vector<double> skews;
  const int reps = std::max(5, in.prober.repeats() + 2);
  for (auto& b : walk) {
    const int gap = gap_before(f.result.layout, b.lba);
    const double ph1 = in.prober.phase(b.lba - 1, reps), ph2 = in.prober.phase(b.lba, reps);
    double sk = wrap_unit(ph2 - ph1 - (1 + gap) * f.step0) / f.step0;
    if (sk > f.spt0 - 0.5) sk -= f.spt0;
    b.skew = sk;
    skews.push_back(sk);
  }
  return classify_boundaries(skews, std::max(1.0, 6.0 * noise_sectors));
}

// Consecutive track boundaries from LBA 0 (24, then twice as many up to 256, until
// their skews show a period: the heads), into `walk`; their classes.
BoundaryClasses walk_skews(Instrument& in, Findings& f, SlipSearch& slips, std::vector<Boundary>& walk) {
  BoundaryClasses c;
  const double noise_sectors = in.prober.phase_noise() / f.step0 / std::sqrt(static_cast<double>(in.prober.repeats()));
  int want = 24;
  std::size_t checked = 0;
  while (want <= 256) {
    const std::uint64_t from = walk.empty() ? 0 : walk.back().lba;
    auto more = walk_boundaries(in.prober, from, f.spt0, f.step0, want - static_cast<int>(walk.size()));
    walk.insert(walk.end(), more.begin(), more.end());
    correct_for_slips(f, slips, walk, checked);
    std::vector<double> skews;
    for (const auto& b : walk) skews.push_back(b.skew);
    c = classify_boundaries(skews, std::max(1.0, 6.0 * noise_sectors));
    if (c.heads == 0 && c.why.find("two classes") != std::string::npos) c = remeasure_skews(in, f, walk, noise_sectors);
    in.tick(static_cast<double>(walk.size()) / 256.0);
    if (c.heads > 0 || static_cast<int>(walk.size()) < want) break;
    want *= 2;
  }
  for (std::size_t i = 0; i < walk.size(); ++i) f.verified.insert((i + 1) * f.spt0);
  return c;
}

// Equal (or invisible) skews: a cylinder switch is a seek, a head switch is not. The
// switch times of the first tracks, classed (into c); the number of heads, 0 when
// they give none.
int heads_by_switch_times(Instrument& in, Findings& f, BoundaryClasses& c, std::vector<double>& moves) {
  std::set<std::size_t> remeasured;
  double first = -1;
  const double min_gap = std::max(0.2, 6.0 * f.result.period.jitter_ms);
  for (int k = 1; k <= 128; ++k) {
    const std::uint64_t b = static_cast<std::uint64_t>(k) * f.spt0;
    if (b + f.spt0 >= in.target.sectors()) break;
    const std::uint64_t src = b - 2, dst = b + f.spt0 / 2;
    if (first < 0) {
      first = in.move_time(src, dst, f.spt0, 0.0, f.result.dead_time_ms);
      moves.push_back(first);
      continue;
    }
    // Same class as the first switch?
    const Millis base = in.tau(f.spt0) + f.result.dead_time_ms;
    const double ph = in.prober.phase(dst);
    bool same = in.prober.reach(src, dst, ph, base + first + min_gap / 2).hit;
    if (in.votes > 1) same = same && in.prober.reach(src, dst, ph, base + first + min_gap / 2).hit;
    moves.push_back(same ? first : in.move_time(src, dst, f.spt0, first + min_gap, f.result.dead_time_ms));
    in.tick(static_cast<double>(k) / 128.0);
    c = classify_boundaries(moves, min_gap);
    if (c.heads == 0 && c.why.find("two classes") != std::string::npos) {
      // Two kinds of switch but no period: a threshold that a late host pushed up
      // looks like a seek. Delays only lengthen a threshold, so measure each long
      // switch once more and keep the shorter.
      for (std::size_t i = 1; i < moves.size(); ++i) {
        if (moves[i] <= first + min_gap || !remeasured.insert(i).second) continue;
        const std::uint64_t bi = (i + 1) * f.spt0;
        moves[i] = std::min(moves[i], in.move_time(bi - 2, bi + f.spt0 / 2, f.spt0, first + min_gap, f.result.dead_time_ms));
      }
      c = classify_boundaries(moves, min_gap);
    }
    if (c.heads > 0 && static_cast<int>(moves.size()) >= 2 * c.heads + 1) return c.heads;
  }
  return 0;
}

// Equal skews and a head switch as long as a one-cylinder seek (datasheet drives of
// today): to the middle of a track D from the start of the track k before, the move is
// a head switch or a one-cylinder seek until k reaches back into the cylinder before
// the previous one, where it becomes a two-cylinder seek, a little longer (0.022 ms on
// a 15k drive). That step lies at k = heads + 1 + the head of D: one track on, one k
// more, until D is a cylinder's first, where it falls back to heads + 1. The dst stays
// the same for every k, so that its phase, measured once, cannot differ between the
// moves compared (phases behind a late host are off by more than the step). Heads up
// to kMaxHeads; 0 when no step shows.
class SeekSteps {
 public:
  static constexpr int kMaxHeads = 32;
  // The first dst track: every source track, up to 2 kMaxHeads before, exists.
  static constexpr int kFirstDst = 2 * kMaxHeads + 1;
  // Probes stop at `deadline` (the drive's elapsed time): the step then finds no heads.
  SeekSteps(Instrument& in, const Findings& f, Millis deadline) : in_(in), f_(f), deadline_(deadline) {}
  bool out_of_time() const { return in_.elapsed() > deadline_; }

  // The number of heads and LBA 0's head (into c), or 0.
  int find(BoundaryClasses& c) {
    const int d0 = kFirstDst;
    const int s0 = first_step(d0);
    if (s0 == 0) return 0;
    // Up to the next cylinder's first track, d's step is s0 + (d - d0); from there on it
    // is at least a head less: whether the move a track short of the former is longer
    // tells which, so the cylinder's first track is found by bisection.
    auto dropped = [&](int d) { return longer(d, s0 + (d - d0) - 1); };
    int lo = d0, hi = d0 + kMaxHeads;
    if (!fits(hi) || !dropped(hi)) return 0;
    while (hi - lo > 1) {
      if (out_of_time()) return 0;
      const int mid = (lo + hi) / 2;
      (dropped(mid) ? hi : lo) = mid;
    }
    // The track before hi is its cylinder's last: its step is at 2 heads; hi's at heads + 1.
    const int twice = s0 + (hi - d0) - 1;
    if (twice % 2 != 0) return 0;
    const int heads = twice / 2;
    if (out_of_time() || !longer(hi, heads + 1) || (heads > 1 && longer(hi, heads))) return 0;
    c.heads = heads;
    c.first_head = ((heads - hi) % heads + heads) % heads;
    return heads;
  }

 private:
  // From near the start of the track k before d (the drive's read-ahead after it must
  // not carry the head over into the next track before the move), to the sector of
  // track d that comes round a tenth of a turn after the move from the track before
  // could reach it.
  std::uint64_t src(int d, int k) const { return static_cast<std::uint64_t>(d - k) * f_.spt0 + 2; }
  std::uint64_t dst(int d) {
    const std::uint64_t start = static_cast<std::uint64_t>(d) * f_.spt0;
    const double lead = (base() + 0.4 * in_.prober.period()) / in_.prober.period() + 0.1;
    const double want = in_.prober.phase(src(d, 1)) + lead + 1.0 / f_.spt0;
    const double off = wrap_unit(want - in_.prober.phase(start));
    return start + std::min<std::uint64_t>(f_.spt0 - 1, static_cast<std::uint64_t>(off * f_.spt0));
  }
  bool fits(int d) const { return static_cast<std::uint64_t>(d + 2) * f_.spt0 < in_.target.sectors(); }
  Millis base() const { return in_.tau(f_.spt0) + f_.result.dead_time_ms; }

  // The pair as measured (turned round where dst is in src's read-ahead) and its dst's
  // phase, measured once a dst.
  struct Probe {
    Instrument::Move m;
    double phase;
  };
  Probe probe(int d, int k) {
    if (!dst_.contains(d)) dst_[d] = dst(d);
    const Instrument::Move m = in_.oriented({src(d, k), dst_[d]});
    auto it = phase_.find(m.dst);
    if (it == phase_.end()) it = phase_.emplace(m.dst, in_.prober.phase(m.dst, std::max(9, in_.prober.repeats()))).first;
    return {m, it->second};
  }

  // A coarse difference this far from the pivot: no late host's drift or bias explains it.
  static constexpr Millis kClearMs = 0.2;
  Millis excess(int d, int k, Millis pivot);
  Millis excess_beyond(int d, int k, Millis pivot, Millis band);
  bool longer(int d, int k);
  int first_step(int d);

  Instrument& in_;
  const Findings& f_;
  std::map<int, std::uint64_t> dst_;
  std::map<std::uint64_t, double> phase_;
  // The two-cylinder seek's excess over a one-track move (a longer move's may be more).
  Millis step_ = 0;
  Millis deadline_;
};

// How much longer the move from track d - k to track d is than from the track before
// d (ms). A late host only delays the dst read's issue, never hastens it: a hit proves
// the slack enough, a miss proves nothing. So behind a noisy host a threshold is the
// least slack that ever hit, pressed down by probes in ever narrower windows below it
// (the noise is one-sided: a median would sit a mean delay above the move). The two
// moves are probed in turn, so that the frame's drift as it is refitted (as much as the
// step over a few seconds) shifts both alike.
Millis SeekSteps::excess(int d, int k, Millis pivot) {
  const Probe p[2] = {probe(d, 1), probe(d, k)};
  // (Without noise a threshold is bisected to a fifth of the resolution: the step may
  // be twice the resolution only.)
  const Millis b = base(), res = in_.options.resolution_ms / (in_.prober.noisy() ? 1.0 : 5.0);
  Millis hi[2];
  for (int i = 0; i < 2; ++i)
    hi[i] = in_.prober.reach_threshold(p[i].m.src, p[i].m.dst, p[i].phase, b - 0.3, b + 1.0, res, in_.votes) + res;
  // (A difference far from the pivot is told without pressing down: the laptop drive's
  // 1.9 ms step, a seek of several cylinders.)
  if (!in_.prober.noisy() || std::abs(hi[1] - hi[0] - pivot) > kClearMs) return hi[1] - hi[0];
  for (const Millis window : {0.08, 0.04, 0.02, 0.01, 0.005})
    for (int t = 0; t < 20; ++t)
      for (int i = 0; i < 2 && !out_of_time(); ++i) {
        const Millis slack = hi[i] - window * static_cast<double>(1 + in_.rand_below(1000)) / 1000.0;
        if (in_.prober.reach(p[i].m.src, p[i].m.dst, p[i].phase, slack).hit) hi[i] = slack;
      }
  return hi[1] - hi[0];
}

// Is the move from track d - k to track d longer than from the track before by more
// than half the step? (Measured against d's own one-track move: another dst's phase
// may be off by more than the step.) An excess near the half is measured again (see
// excess_beyond).
bool SeekSteps::longer(int d, int k) { return excess_beyond(d, k, 0.5 * step_, 0.4 * step_) > 0.5 * step_; }

// The excess of the move from track d - k, measured up to three times while the median
// lies within `band` of `pivot` (the frame's drift as it is refitted can spoil one).
Millis SeekSteps::excess_beyond(int d, int k, Millis pivot, Millis band) {
  std::vector<double> e;
  do e.push_back(excess(d, k, pivot));
  while (e.size() < 3 && std::abs(median(e) - pivot) < band);
  return median(e);
}

// Track d's step, by moves of 1, 2, 4, ... tracks then bisection, and the threshold
// halfway between the one- and two-cylinder moves; 0 when no move is longer than the
// one-track move by more than the resolution of a threshold.
int SeekSteps::first_step(int d) {
  if (!fits(d)) return 0;
  const Millis gap = in_.options.resolution_ms;
  int lo = 1, hi = 0;
  Millis step = 0;
  for (int k = 2; k <= 2 * kMaxHeads && !out_of_time(); k *= 2) {
    const Millis t = excess_beyond(d, k, gap, gap);
    if (t > gap) {
      hi = k, step = t;
      break;
    }
    lo = k;
  }
  if (hi == 0) return 0;
  while (hi - lo > 1) {
    if (out_of_time()) return 0;
    const int mid = (lo + hi) / 2;
    const Millis t = excess_beyond(d, mid, gap, gap);
    if (t > gap) hi = mid, step = t;
    else lo = mid;
  }
  step_ = step;
  in_.note(fmt::format("heads: into track {}, a move of {} tracks or more is a two-cylinder seek ({:.4f} ms longer "
                       "than a track's)",
                       d, hi, step));
  return hi;
}

// Zone 0's heads and first skews when the skews did not tell the heads (c: what they
// said); LBA 0's head.
std::int32_t zone0_by_switch_times(Instrument& in, Findings& f, BoundaryClasses& c, const std::vector<Boundary>& walk,
                                   Millis deadline) {
  Layout& L = f.result.layout;
  std::int32_t first_head = 0;
  if (f.boundaries_visible)
    in.note(fmt::format("track and cylinder skews look alike ({}); telling cylinder switches "
                        "by their switch time",
                        c.why));
  std::vector<double> moves;
  int heads = heads_by_switch_times(in, f, c, moves);
  SeekSteps seek_steps(in, f, deadline);
  if (heads == 0 && (heads = seek_steps.find(c)) > 0)
    in.note(fmt::format("switch times alike too ({}); {} heads from where a move of k tracks becomes a "
                        "two-cylinder seek (k = heads + 1 + the head of the track it ends on)",
                        c.why, heads));
  if (heads == 0) {
    const std::string why = fmt::format("the track switches in the first {} tracks give no number of heads ({}){}",
                                        moves.size(), c.why,
                                        seek_steps.out_of_time()
                                            ? std::string(", and the moves of k tracks were not told within the "
                                                          "heads step's share of the budget")
                                            : std::string());
    if (in.options.heads) {
      heads = *in.options.heads;
      f.heads_how = "given (--heads): " + why;
    } else {
      heads = in.options.seeds.heads.value_or(1);
      f.heads_how = "assumed: " + why;
      if (!in.options.seeds.heads) f.heads_assumed = fmt::format("{}; 1 assumed", why);
    }
    in.note(fmt::format("{}; taking {} head(s){}", why, heads,
                        in.options.heads ? " from --heads"
                        : in.options.seeds.heads ? " from MODE SENSE page 04h" : ""));
  }
  L.heads = heads;
  if (c.heads == heads) first_head = c.first_head;
  ZoneLayout z;
  z.spt = f.spt0;
  if (f.boundaries_visible && !walk.empty()) {
    // The walked boundaries, split by the heads the switch times found.
    std::vector<double> trk, cyl;
    for (std::size_t i = 0; i < walk.size(); ++i)
      ((i + 1 + static_cast<std::size_t>(first_head)) % static_cast<std::size_t>(heads) == 0 ? cyl : trk)
          .push_back(walk[i].skew);
    const double all = median(trk.empty() ? cyl : trk);
    z.track_skew = in.first_skew(trk.empty() ? all : median(trk));
    z.cylinder_skew = in.first_skew(cyl.empty() ? all : median(cyl));
  } else {
    z.track_skew = z.cylinder_skew = 0.0;
  }
  L.zones.push_back(z);
  return first_head;
}

// An empty front: the tracks before LBA 0 on its cylinder hold no LBA. Whole cylinders
// before that one would show in no timing: cylinders count from it.
void shift_for_empty_front(Instrument& in, Findings& f, std::int32_t first_head) {
  Layout& L = f.result.layout;
  const std::uint64_t front = static_cast<std::uint64_t>(first_head) * f.spt0;
  Layout shifted;
  shifted.heads = L.heads;
  shifted.zones = L.zones;
  shifted.sectors = L.sectors;
  shifted.add_hole(0, front, HoleKind::Front);
  for (const Hole& h : L.holes()) shifted.add_hole(h.pba + front, h.count, h.kind);
  L = shifted;
  std::set<std::uint64_t> verified;
  for (std::uint64_t p : f.verified) verified.insert(p + front);
  f.verified = verified;
  in.note(fmt::format("LBA 0 is on head {} of its cylinder: the {} tracks before it hold no LBA (an empty "
                      "front; whole cylinders before it would not show, and cylinders are counted from "
                      "LBA 0's)",
                      first_head, first_head));
}

}  // namespace

void find_heads(Instrument& in, Findings& f, double share) {
  in.step("heads");
  // Behind a cache defeat and a noisy host the moves of k tracks cost 128 evicting reads
  // a probe: without a limit the step ran 72 minutes of a 9.5-minute budget.
  const Millis deadline = in.elapsed() + share * in.options.budget_ms;
  SlipSearch slips(in, f);
  Layout& L = f.result.layout;
  L.sectors = in.target.sectors();
  std::vector<Boundary> walk;
  BoundaryClasses c;
  // Zone 0 as far as it is known; every boundary a track switch until heads are known.
  L.heads = 1 << 20;
  ZoneLayout z0;
  z0.spt = f.spt0;
  L.zones = {z0};
  if (f.boundaries_visible) c = walk_skews(in, f, slips, walk);
  L.zones.clear();
  std::int32_t first_head = 0;
  if (c.heads > 0) {
    L.heads = c.heads;
    first_head = c.first_head;
    ZoneLayout z;
    z.spt = f.spt0;
    z.track_skew = in.first_skew(c.track_value);
    z.cylinder_skew = in.first_skew(c.cylinder_value);
    L.zones.push_back(z);
  } else {
    first_head = zone0_by_switch_times(in, f, c, walk, deadline);
  }
  if (first_head > 0) shift_for_empty_front(in, f, first_head);
  if (in.options.seeds.heads && *in.options.seeds.heads != L.heads)
    in.note(fmt::format("MODE SENSE page 04h says {} heads, timing finds {}", *in.options.seeds.heads, L.heads));
  in.tick(1.0);
}

}  // namespace disksched::extract
