#include "tools/extract/slips.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/extract/stats.hpp"

namespace disksched::extract {

int gap_before(const Layout& L, std::uint64_t lba) {
  if (lba == 0) return 0;
  return static_cast<int>(L.pba_of_lba(lba) - L.pba_of_lba(lba - 1) - 1);
}

std::optional<double> expected_delta(const Layout& L, std::uint64_t p1, std::uint64_t p2) {
  // Angle from the end of sector p1 to the end of sector p2 (p1 < p2, a cylinder or so
  // apart at most), from the skews known so far.
  const ZoneLayout* za = &L.zone_of_pba(p1);
  const ZoneLayout* zb = &L.zone_of_pba(p2);
  std::uint64_t t = za->first_pba + (p1 - za->first_pba) / za->spt * za->spt;
  const std::uint64_t tb = zb->first_pba + (p2 - zb->first_pba) / zb->spt * zb->spt;
  double off = 0;
  for (int i = 0; t < tb; ++i) {
    if (i > 2 * L.heads + 16) return std::nullopt;
    const ZoneLayout& z = L.zone_of_pba(t);
    const std::uint64_t next = t + z.spt;
    const ZoneLayout& zn = L.zone_of_pba(next);
    if (&zn != &z || L.chs(next).head == 0)
      off += zn.cylinder_skew.value_or(0.0) / zn.spt;
    else
      off += z.track_skew.value_or(0.0) / z.spt;
    t = next;
  }
  const Chs3 a = L.chs(p1), b = L.chs(p2);
  return off + (b.sector + 1.0) / zb->spt - (a.sector + 1.0) / za->spt;
}

// Behind a cache defeat every re-read of a sector first reads one place per segment the
// drive keeps (it holds the sector just read, and what follows it), and a phase of n
// reads cost about 1.7 turns a read on the C2247A. A sector behind the last read lies in
// no window the defeat keeps: the n sectors of y's track from the highest down need no
// evicting read, a turn each, and each phase less its physical distance from y is y's.
// (A slipped sector not yet found among them would split them a sector apart; the drive
// that needs a defeat here, the C2247A, has slipped tracks only, which a run within a
// track does not cross.)
double track_phase(Instrument& in, std::uint64_t y, int reps, std::uint32_t spt, const SectorsFrom& from) {
  if (reps <= 0) reps = in.prober.repeats();
  if (!in.defeat || reps < 3) return in.prober.phase(y, reps);
  const auto n = static_cast<std::uint64_t>(reps);
  std::uint64_t top = y;
  while (top - y + 1 < n && from(top + 1)) ++top;
  if (top + 1 < n || !from(top + 1 - n)) return in.prober.phase(y, reps);
  std::vector<double> ph;
  for (std::uint64_t x = top + 1; x-- > top + 1 - n;) ph.push_back(wrap_unit(in.prober.phase(x, 1) - *from(x) / spt));
  return in.prober.combine_phases(ph);
}

double SlipSearch::phase(std::uint64_t y, int reps) { return layout_phase(in_, f_.result.layout, y, reps); }

double layout_phase(Instrument& in_, const Layout& L, std::uint64_t y, int reps) {
  if (L.zones.empty()) return in_.prober.phase(y, reps);
  const std::uint64_t total = in_.target.sectors();
  const std::uint64_t p = L.pba_of_lba(y);
  const ZoneLayout& z = L.zone_of_pba(p);
  const std::uint64_t track = z.first_pba + (p - z.first_pba) / z.spt * z.spt;
  return track_phase(in_, y, reps, z.spt, [&](std::uint64_t x) -> std::optional<double> {
    if (x >= total) return std::nullopt;
    const std::uint64_t q = L.pba_of_lba(x);
    if (q < track || q >= track + z.spt) return std::nullopt;
    return static_cast<double>(q) - static_cast<double>(p);
  });
}

bool SlipSearch::aligned(std::uint64_t track_pba, double* phase_out) {
  const Layout& L = f_.result.layout;
  const std::uint64_t good = L.next_good(track_pba);
  const std::uint64_t y = L.lba_of_pba(good);
  if (y == 0 || y >= in_.target.sectors()) return true;
  const std::uint64_t p0 = L.pba_of_lba(y - 1);
  const double step = 1.0 / L.zone_of_pba(good).spt;
  const auto expected = expected_delta(f_.result.layout, p0, good);
  if (!expected) return true;  // after spare tracks: nothing to compare with
  const double want = *expected;
  // A "no" starts a search for slipped sectors: confirm it with more reads first, so
  // that one preempted completion cannot invent a defect.
  for (int reps : {in_.prober.repeats(), std::max(5, in_.prober.repeats() + 2)}) {
    const double ph = phase(y, reps);
    if (phase_out) *phase_out = ph;
    const double err = std::fabs(wrap_half(ph - phase(y - 1, reps) - want));
    if (err < 0.5 * step) return true;
    if (beyond_noise(err, 0.5 * step, reps)) return false;
  }
  return false;
}

// A "no" is read again with more reads, in case noise made it; not one so far off that
// the noise cannot have: with three reads or more a phase is the earliest of its densest
// cluster, which misses by more than six jitters and 0.1 ms only when fewer than two of
// its reads came on time (under 1 % by repeats_for). Most tests past a zone's end land
// tens of sectors off; their second reading was most of a busy host's zones step (the
// C2247A: a test of a cylinder 27 reads when it holds, 100 when it does not).
bool SlipSearch::beyond_noise(double err, double tolerance, int reps) const {
  if (reps < 3) return false;
  const Millis T = in_.prober.period();
  return (err - tolerance) * T > std::max(0.1, 6.0 * in_.prober.period_estimate().jitter_ms);
}

bool SlipSearch::consistent(std::uint64_t y0, double phase0, std::uint64_t y, double tolerance) {
  const Layout& L = f_.result.layout;
  const double step = 1.0 / L.zone_of_pba(L.pba_of_lba(y)).spt;
  const auto expected = expected_delta(f_.result.layout, L.pba_of_lba(y0), L.pba_of_lba(y));
  if (!expected) return true;
  const double want = *expected;
  const int reps = std::max(5, in_.prober.repeats() + 2);
  double err = 0.0;
  for (int n : {in_.prober.repeats(), reps}) {
    err = std::fabs(wrap_half(phase(y, n) - phase0 - want)) / step;
    if (err < tolerance) return true;
    if (beyond_noise(err * step, tolerance * step, n)) return false;
  }
  // Off by less than a slipped sector is: the anchor, read seconds ago, may be off by
  // more than half a sector on a real-time host, whose timing wanders (a pair read back
  // to back is not). Once more against the anchor read again just before.
  if (err > tolerance + 0.35) return false;
  const double anchor = phase(y0, reps);
  return std::fabs(wrap_half(phase(y, reps) - anchor - want)) < tolerance * step;
}

void SlipSearch::localize_track(std::uint64_t track_pba, const std::function<bool()>& done) {
  Layout& L = f_.result.layout;
  const std::uint32_t spt = L.zone_of_pba(track_pba).spt;
  for (std::uint32_t k = 0; k <= spt; ++k) {
    in_.check_deadline();
    if (done()) return;
    const std::uint64_t first = L.next_good(track_pba);
    const std::uint64_t y0 = L.lba_of_pba(first);
    const std::uint64_t ye = L.lba_of_pba(track_pba + spt) - 1;
    if (ye <= y0 || first >= track_pba + spt) break;
    const double ph0 = phase(y0, std::max(5, in_.prober.repeats() + 2));
    if (consistent(y0, ph0, ye)) {
      // Every sector follows the first: the hole is before it (a leading hole).
      L.add_slipped(first);
    } else {
      std::uint64_t lo = y0, hi = ye;
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (consistent(y0, ph0, mid) ? lo : hi) = mid;
      }
      L.add_slipped(L.pba_of_lba(hi));
    }
  }
  if (!done())
    throw TimingNoiseError(fmt::format(
        "irregular layout: the sectors of track {} (cylinder {} head {}) do not follow any pattern of "
        "slipped sectors, or the timing is too noisy",
        track_pba, L.chs(track_pba).cylinder, L.chs(track_pba).head));
}

void SlipSearch::localize(std::uint64_t bad) {
  ++searches;
  const Timed timed(in_, search_ms);
  const Layout& L = f_.result.layout;
  const std::uint64_t target = bad;
  int retries = 0;
  for (int found = 0; found < 64; ++found) {
    in_.check_deadline();
    auto it = f_.verified.lower_bound(bad);
    std::uint64_t good = it == f_.verified.begin() ? 0 : *std::prev(it);
    // Bisect over cylinder starts first: a slipped track shows only where the cylinder
    // switches fall (the track switches between look alike), a slipped sector anywhere.
    const ZoneLayout& z = L.zone_of_pba(bad);
    std::int64_t cg = L.chs(good).cylinder, cb = L.chs(bad).cylinder;
    while (cb - cg > 1) {
      const std::int64_t mid = cg + (cb - cg) / 2;
      const std::uint64_t m = L.pba(mid, 0, 0);
      if (aligned(m)) {
        f_.verified.insert(m);
        good = std::max(good, m);
        cg = mid;
      } else {
        bad = m;
        cb = mid;
      }
    }
    // Then over the track starts between, against the phase of the good one (skews
    // summed over the tracks crossed, so that a track slipped before shows).
    const std::uint64_t y0 = L.lba_of_pba(good);
    const double ph0 = phase(y0, std::max(5, in_.prober.repeats() + 2));
    std::uint64_t lo = 0, hi = std::max<std::uint64_t>(1, (bad - good) / z.spt);  // lo follows, hi not
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (consistent(y0, ph0, L.lba_of_pba(good + mid * z.spt)) ? lo : hi) = mid;
    }
    const std::uint64_t first_off = good + hi * z.spt;
    // A slipped track: the LBAs from first_off on lie a track later, as a whole.
    const std::uint64_t y = L.lba_of_pba(first_off);
    Layout& W = f_.result.layout;
    if (W.next_good(first_off) == first_off && W.lba_of_pba(first_off + z.spt) == y + z.spt) {
      W.add_hole(first_off, z.spt, HoleKind::Track);
      // The hole against the layout without it is a switch's skew apart, against the hole
      // with a slipped sector in the track before it one sector. The anchor, read a
      // second or more before and several tracks back, may be off by more than half a
      // sector on a real-time host (its timing wanders): it only has to say the hole,
      // within a sector; the pair across the hole, read back to back, says exactly.
      const double skew = std::min(std::fabs(z.track_skew.value_or(0.0)), std::fabs(z.cylinder_skew.value_or(0.0)));
      const double far_tol = std::clamp(skew / 3.0, 0.5, 1.0);
      if (L.lba_of_pba(first_off + z.spt) == y && aligned(first_off + z.spt) &&
          consistent(y0, ph0, y, far_tol) && consistent(y0, ph0, y + z.spt - 1, far_tol)) {
        f_.verified.insert(first_off + z.spt);
        if (aligned(target)) return;
        bad = target;
        continue;
      }
      W.remove_hole(first_off);
    }
    // Otherwise slipped sectors in the track before it. Neither fitting can be one late
    // read (in the bisection or the anchor): the search is made again from the start,
    // twice at most, with the layout as it was.
    const Layout before = f_.result.layout;
    try {
      localize_track(first_off - z.spt, [&] { return aligned(first_off); });
    } catch (const TimingNoiseError&) {
      f_.result.layout = before;
      if (++retries > 2) throw;
      bad = target;
      continue;
    }
    f_.verified.insert(first_off);
    if (aligned(target)) return;
    bad = target;
  }
  throw TimingNoiseError(fmt::format("irregular layout: more than 64 slipped tracks or sectors before "
                                     "cylinder {} head {}, or the timing is too noisy",
                                     L.chs(target).cylinder, L.chs(target).head));
}

}  // namespace disksched::extract
