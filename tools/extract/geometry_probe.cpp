#include "tools/extract/geometry_probe.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/extract/stats.hpp"

namespace disksched::extract {
namespace {

// A boundary must stand out by half a sector from the within-track phase step.
constexpr double kBoundaryThreshold = 0.5;

// Skew in sectors from the phases of the last sector of one track and the first of the
// next: (1 + skew) sectors of rotation between their ends. Near-zero skews that the
// noise pushed negative come back as small negative numbers, not as almost a track.
double skew_from(double phase_before, double phase_after, double step) {
  const double spt = 1.0 / step;
  double s = wrap_unit(phase_after - phase_before - step) / step;
  if (s > spt - kBoundaryThreshold) s -= spt;
  return s;
}

// How far a phase step must stand out to be a boundary: half a sector, or on a drive
// whose sectors pass in a few microseconds, where a host's completion jitter spans many
// of them (26 on an 8 TB drive behind a late host), three times that jitter: a track
// switch's skew there is a tenth of a turn, still far above it.
double boundary_threshold(const Prober& p, double step) {
  const double noise = p.phase_noise();
  return noise > 4.0 * step ? 3.0 * noise : kBoundaryThreshold * step;
}

}  // namespace

std::vector<double> phases_of(Prober& p, const std::vector<std::uint64_t>& lbas) {
  std::vector<double> ph(lbas.size());
  std::vector<std::size_t> order(lbas.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (p.target().prefers_descending_reads())
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lbas[a] > lbas[b]; });
  for (std::size_t i : order) ph[i] = p.phase(lbas[i]);
  return ph;
}

int repeats_for(const Prober& p, double step) {
  // Standard error of a median of n reads ~ 1.25 sigma / sqrt(n); aim for 0.1 sector.
  const double sigma_sectors = p.phase_noise() / step;
  const double n = std::ceil(std::pow(1.25 * sigma_sectors / 0.1, 2));
  int r = static_cast<int>(std::clamp(n, 1.0, 9.0));
  r = r % 2 == 0 ? r + 1 : r;
  if (p.noisy()) {
    // The mode of the reads needs two that were not late: enough reads that fewer than
    // two on time happens with odds under 1 %.
    const double q = std::min(p.late_fraction(), 0.6);
    int k = 3;
    auto fail = [q](int m) { return std::pow(q, m) + m * std::pow(q, m - 1) * (1 - q); };
    while (k < 15 && fail(k) > 0.01) ++k;
    r = std::max(r, k);
  }
  return r;
}

double rough_step(Prober& p, std::uint64_t start) {
  const std::uint64_t n = p.target().sectors();
  // On a noisy host single reads scatter: a second pass takes each phase from more.
  const int first = p.repeats();
  for (int reps : {first, std::max({first, 5, repeats_for(p, 1.0)})}) {
    for (std::uint64_t m = 1; m <= 4096; m *= 2) {
      if (start + 6 * m >= n) break;
      std::vector<double> ph(7);
      const bool down = p.target().prefers_descending_reads();
      for (int i = 0; i <= 6; ++i) {
        const int j = down ? 6 - i : i;
        ph[j] = p.phase(start + static_cast<std::uint64_t>(j) * m, reps);
      }
      std::vector<double> d;
      for (std::size_t j = 1; j < ph.size(); ++j) d.push_back(wrap_half(ph[j] - ph[j - 1]));
      const double med = median(d);
      if (med > 0.3) break;  // strides this long wrap around: no finer structure to see
      if (med > 0 && robust_sigma(d) < 0.25 * med) return med / static_cast<double>(m);
    }
    if (!p.noisy() || reps > first) break;
  }
  throw TimingNoiseError(fmt::format(
      "no sector structure near LBA {}: completion phases of neighbouring sectors do not "
      "advance regularly (too much timing noise, or a device that remaps blocks)",
      start));
}

namespace {

// Bisects each flagged interval (of m sectors from start, i-th phases ph[i], ph[i + 1])
// to the boundary, then verifies it with more reads: a jump between b - 1 and b, none
// between b - 2 and b - 1. A preempted read can send the bisection the wrong way; then
// it is repeated with more reads per phase. The boundaries found, into scan.
void locate_boundaries(Prober& p, std::uint64_t start, std::uint64_t m, const std::vector<std::size_t>& flagged,
                       const std::vector<double>& ph, double step, double thr, TrackScan& scan) {
  const int heavy = std::max(5, p.repeats() + 2);
  auto jump = [&](std::uint64_t a, int reps) {
    return std::fabs(wrap_half(p.phase(a + 1, reps) - p.phase(a, reps) - step)) > thr;
  };
  for (std::size_t i : flagged) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      const int reps = attempt == 0 ? p.repeats() : heavy;
      std::uint64_t lo = start + i * m, hi = lo + m;
      double plo = attempt == 0 ? ph[i] : p.phase(lo, reps), phi = attempt == 0 ? ph[i + 1] : p.phase(hi, reps);
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        const double pm = p.phase(mid, reps);
        const double dl = std::fabs(wrap_half(pm - plo - static_cast<double>(mid - lo) * step));
        const double dr = std::fabs(wrap_half(phi - pm - static_cast<double>(hi - mid) * step));
        if (dl <= dr) {
          lo = mid;
          plo = pm;
        } else {
          hi = mid;
          phi = pm;
        }
      }
      const bool ok = jump(hi - 1, heavy) && (hi - 1 <= start + i * m || !jump(hi - 2, heavy));
      if (!ok && attempt == 0) continue;
      if (ok) {
        scan.boundaries.push_back(hi);
        scan.skews.push_back(skew_from(p.phase(hi - 1, heavy), p.phase(hi, heavy), step));
      }
      break;
    }
  }
}

// Track size: the most common distance between consecutive boundaries (a track that
// lost sectors to slipped defects is shorter), else the phase step (`step`, refined),
// into scan. (ph0: the phase at start; len: the sectors the scan covered.)
void track_size(Prober& p, std::uint64_t start, double ph0, std::uint64_t len, double spt0, double& step,
                TrackScan& scan) {
  const std::uint64_t n = p.target().sectors();
  std::map<std::uint64_t, int> lengths;
  for (std::size_t i = 1; i < scan.boundaries.size(); ++i)
    ++lengths[scan.boundaries[i] - scan.boundaries[i - 1]];
  if (!lengths.empty()) {
    auto best = std::max_element(lengths.begin(), lengths.end(), [](const auto& a, const auto& b) {
      return a.second < b.second || (a.second == b.second && a.first < b.first);
    });
    scan.spt = static_cast<std::uint32_t>(best->first);
    scan.exact = true;
  } else {
    // No two boundaries in view (zero skew): refine the step on a growing baseline,
    // as long as the phases keep following it, then round.
    const double p0 = ph0;
    for (int k = 0; k < 8; ++k) {
      len *= 2;
      if (start + len >= n || static_cast<double>(len) > 64.0 * spt0) break;
      const double r = wrap_half(p.phase(start + len) - p0 - static_cast<double>(len) * step);
      if (std::fabs(r) > 0.3 * step) break;  // something (a skew, a zone) in between
      step = (static_cast<double>(len) * step + r) / static_cast<double>(len);
    }
    scan.spt = static_cast<std::uint32_t>(std::lround(1.0 / step));
    scan.exact = false;
  }
}

}  // namespace

TrackScan scan_tracks(Prober& p, std::uint64_t start, double step_hint, int min_boundaries) {
  const std::uint64_t n = p.target().sectors();
  TrackScan scan;
  double step = step_hint > 0 ? step_hint : rough_step(p, start);
  const double spt0 = 1.0 / step;
  const auto m = static_cast<std::uint64_t>(std::max(1.0, std::floor(spt0 / 6.0)));
  const double span = (min_boundaries + 0.6) * spt0;
  auto count = static_cast<std::uint64_t>(std::ceil(span / static_cast<double>(m)));
  if (start + count * m >= n) {
    if (n <= start + 2 * m) throw std::runtime_error(fmt::format("LBA {} is too close to the end of the device to scan a track", start));
    count = (n - 1 - start) / m;
  }

  std::vector<std::uint64_t> lbas;
  for (std::uint64_t i = 0; i <= count; ++i) lbas.push_back(start + i * m);
  std::vector<double> ph = phases_of(p, lbas);
  auto diffs = [&] {
    std::vector<double> d;
    for (std::size_t i = 1; i < ph.size(); ++i) d.push_back(wrap_half(ph[i] - ph[i - 1]));
    return d;
  };
  std::vector<double> d = diffs();
  double d0 = median(d);
  {
    // A wrong hint (a zone with a very different track size) shows as a stride that
    // wraps or as boundaries everywhere: start again from a fresh rough step.
    std::size_t off = 0;
    for (double x : d) off += std::fabs(wrap_half(x - d0)) > boundary_threshold(p, d0 / static_cast<double>(m));
    if (d0 <= 0 || d0 > 0.35 || off * 10 > 4 * d.size()) {
      if (step_hint > 0) return scan_tracks(p, start, 0.0, min_boundaries);
      // Reads that came back late or from a buffer scatter single phases: once more, each
      // phase the median of more reads, before giving up.
      if (p.repeats() < 3) {
        const int r = p.repeats();
        p.set_repeats(std::max(3, r + 2));
        try {
          TrackScan again = scan_tracks(p, start, 0.0, min_boundaries);
          p.set_repeats(r);
          return again;
        } catch (...) {
          p.set_repeats(r);
          throw;
        }
      }
      throw TimingNoiseError(fmt::format(
          "no regular sector structure near LBA {} (phase step per {} sectors: {:.4f} rotations)",
          start, m, d0));
    }
  }
  step = d0 / static_cast<double>(m);
  const double thr = boundary_threshold(p, step);
  std::vector<std::size_t> flagged;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (std::fabs(wrap_half(d[i] - d0)) <= thr) continue;
    // Confirm with fresh reads of both ends before believing it.
    ph[i] = p.phase(start + i * m, p.repeats() + 2);
    ph[i + 1] = p.phase(start + (i + 1) * m, p.repeats() + 2);
    if (std::fabs(wrap_half(wrap_half(ph[i + 1] - ph[i]) - d0)) > thr) flagged.push_back(i);
  }
  // Refine the step from the intervals without a boundary.
  {
    d = diffs();
    std::vector<double> clean;
    for (std::size_t i = 0; i < d.size(); ++i)
      if (std::find(flagged.begin(), flagged.end(), i) == flagged.end()) clean.push_back(d[i]);
    if (!clean.empty()) step = median(clean) / static_cast<double>(m);
  }

  locate_boundaries(p, start, m, flagged, ph, step, thr, scan);
  track_size(p, start, ph.front(), count * m, spt0, step, scan);
  scan.step = scan.exact ? 1.0 / scan.spt : step;
  return scan;
}

double measure_skew(Prober& p, std::uint64_t lba, double step, int samples, int gap) {
  std::vector<double> s;
  for (int i = 0; i < std::max(samples, 1); ++i) {
    const double a = p.phase(lba - 1), b = p.phase(lba);
    s.push_back(skew_from(a, b - gap * step, step));
  }
  if (s.size() == 1) return s.front();
  // Skews live on a circle of spt sectors: take the median of the wrapped values.
  const double spt = 1.0 / step;
  std::vector<double> ang;
  for (double v : s) ang.push_back(v / spt);
  double med = circular_median(ang) * spt;
  if (med > spt - kBoundaryThreshold) med -= spt;
  return med;
}

std::vector<Boundary> walk_boundaries(Prober& p, std::uint64_t first, std::uint32_t spt,
                                      double step, int count) {
  std::vector<Boundary> out;
  const std::uint64_t n = p.target().sectors();
  // Where read-ahead would hold each sector just past the one before, the phases of
  // the predicted boundaries are read first, from the last down (a slipped track
  // moves the walk off them, and what follows is read as it comes).
  std::map<std::uint64_t, double> ahead;
  if (p.target().prefers_descending_reads()) {
    std::vector<std::uint64_t> lbas{first};
    for (int k = 1; k <= count && first + k * std::uint64_t{spt} < n; ++k)
      for (std::uint64_t d : {1, 0}) lbas.push_back(first + k * std::uint64_t{spt} - d);
    const std::vector<double> ph = phases_of(p, lbas);
    for (std::size_t i = 0; i < lbas.size(); ++i) ahead.emplace(lbas[i], ph[i]);
  }
  auto phase = [&](std::uint64_t lba) {
    const auto it = ahead.find(lba);
    if (it == ahead.end()) return p.phase(lba);
    const double ph = it->second;
    ahead.erase(it);  // read once: asked again, it is read again
    return ph;
  };
  std::uint64_t b = first;
  double pb = phase(b);
  for (int k = 0; k < count; ++k) {
    const std::uint64_t next = b + spt;
    if (next >= n) break;
    const double pl = phase(next - 1), pn = phase(next);
    // The last sector must still be on the track that starts at b...
    const double same = std::fabs(wrap_half(pl - pb - static_cast<double>(spt - 1) * step));
    if (same > boundary_threshold(p, step)) {
      // ...else the track is shorter or longer than spt here: find its end by scanning.
      // A slipped sector inside the track also looks like a boundary (a skew of one
      // sector); the track's end is the boundary nearest to where it was predicted.
      TrackScan s;
      std::optional<std::size_t> best;
      for (int attempt = 0; attempt < 2 && !best; ++attempt) {
        s = scan_tracks(p, b + 1, step, 2);
        for (std::size_t i = 0; i < s.boundaries.size(); ++i) {
          const auto dist = [&](std::size_t j) {
            return std::llabs(static_cast<long long>(s.boundaries[j]) - static_cast<long long>(next));
          };
          if (dist(i) < static_cast<long long>(spt / 2) && (!best || dist(i) < dist(*best))) best = i;
        }
      }
      if (!best) break;
      Boundary bd{s.boundaries[*best], s.skews[*best], true};
      out.push_back(bd);
      b = bd.lba;
      pb = phase(b);
      continue;
    }
    Boundary bd;
    bd.lba = next;
    bd.skew = skew_from(pl, pn, step);
    bd.visible = std::fabs(bd.skew) > kBoundaryThreshold;
    out.push_back(bd);
    b = next;
    pb = pn;
  }
  return out;
}

BoundaryClasses classify_boundaries(const std::vector<double>& v, double min_gap) {
  BoundaryClasses c;
  if (v.size() < 2) {
    c.why = "too few track boundaries walked";
    return c;
  }
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  double gap = 0, cut = 0;
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i] - sorted[i - 1] > gap) {
      gap = sorted[i] - sorted[i - 1];
      cut = 0.5 * (sorted[i] + sorted[i - 1]);
    }
  if (gap < min_gap) {
    c.why = fmt::format("every track switch looks the same ({:.3f})", median(v));
    return c;
  }
  // Boundary k (1-based) starts track k. Cylinder boundaries repeat every `heads`
  // boundaries; when LBA 0 lies on head h0 (an empty front), they are the k with
  // (k + h0) a multiple of heads. With two heads both classes alternate: LBA 0 on
  // head 0 is then the reading taken.
  std::optional<BoundaryClasses> found;
  for (int side = 0; side < 2; ++side) {
    std::vector<int> idx;
    for (std::size_t i = 0; i < v.size(); ++i)
      if ((v[i] > cut) == (side == 1)) idx.push_back(static_cast<int>(i) + 1);
    if (idx.size() < 2) continue;
    const int g = idx[1] - idx[0];
    const int last = static_cast<int>(v.size());
    // An offset needs a third cylinder switch: two could be one outlier and a switch.
    bool periodic = g >= 2 && (idx[0] == g || (idx[0] < g && idx.size() >= 3));
    for (int k = 1; k <= last && periodic; ++k) {
      const bool member = std::find(idx.begin(), idx.end(), k) != idx.end();
      if (member != (k % g == idx[0] % g)) periodic = false;
    }
    if (!periodic) continue;
    std::vector<double> cyl, trk;
    for (std::size_t i = 0; i < v.size(); ++i)
      ((static_cast<int>(i) + 1) % g == idx[0] % g ? cyl : trk).push_back(v[i]);
    BoundaryClasses f;
    f.heads = g;
    f.first_head = (g - idx[0] % g) % g;
    f.cylinder_value = median(cyl);
    f.track_value = trk.empty() ? 0.0 : median(trk);
    if (!found || found->first_head != 0) found = f;
  }
  if (found) return *found;
  c.why = "the track switches fall into two classes but neither repeats with a fixed period";
  return c;
}

}  // namespace disksched::extract
