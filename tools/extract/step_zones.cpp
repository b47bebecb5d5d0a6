#include "tools/extract/zone_search.hpp"
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/slips.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

// Is cylinder first_cylinder + n still in zone z (same track size)? Also confirms
// (and, with slipped sectors, corrects) where its first track starts.
bool ZoneSearch::in_zone(const ZoneLayout& z, std::int64_t n) {
  in_.check_deadline();
  ++spent_.tests;
  Layout& L = f_.result.layout;
  const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * z.spt;
  const std::uint64_t P = z.first_pba + static_cast<std::uint64_t>(n) * per_cyl;
  const std::uint64_t total = in_.target.sectors();
  const std::uint64_t y = L.lba_of_pba(P);
  if (y >= total) return false;
  if (y + 3 * z.spt >= total) return true;  // a last partial cylinder: nothing to compare
  const double step = 1.0 / z.spt;
  // Quick test: the track starts where predicted and its sectors step by 1/spt.
  double p1 = -1.0;
  in_.prober.prefetch({L.lba_of_pba(P + z.spt - 1), y, y - 1});  // read-ahead carries forward only
  const bool starts = slips_.aligned(P, &p1);
  if (p1 < 0) p1 = slips_.phase(y, 0);
  const std::uint64_t mid = L.lba_of_pba(P + z.spt / 2), end = L.lba_of_pba(P + z.spt - 1);
  const bool at_end = slips_.consistent(y, p1, end);
  if (starts && at_end) {
    f_.verified.insert(P);
    return true;
  }
  const bool at_mid = slips_.consistent(y, p1, mid);
  // Two answers at once are no single noisy read: a track of this zone's size that
  // starts elsewhere has slipped tracks or sectors before it (asked once more), and one
  // whose halves both step otherwise is another zone's (or spare space). That saves a
  // scan at each. On a noisy host each answer is already the earliest of several reads
  // (a late one cannot make it) and a "no" is read again against its anchor read again;
  // there a "no" asks a third sector too, a quarter of the track on. (A scan at each
  // "no" was half the tests of a cylinder and most of the zones step's time in real
  // time: 31 of 61 tests.)
  if (at_mid && at_end) {
    if (slips_.aligned(P)) {
      f_.verified.insert(P);
      return true;
    }
    slips_.localize(P);
    return true;
  }
  if (!at_mid && !at_end && (!in_.prober.noisy() || !slips_.consistent(y, p1, L.lba_of_pba(P + z.spt / 4)))) return false;
  // Otherwise confirm with a scan, so that one noisy read cannot end a zone.
  ++spent_.scans;
  // (From a quarter track before y, to see the track start there. Past a zone's data that
  // quarter is the zone's last track, and the scan's phases step two ways across its end
  // and the spare tracks after it: real time once found "no regular sector structure"
  // there and stopped the zones step at zone 2. From y itself the scan sees what lies
  // past the end alone.)
  const TrackScan s = [&] {
    try {
      return scan_tracks(in_.prober, y > z.spt / 4 ? y - z.spt / 4 : 0, step, 2);
    } catch (const TimingNoiseError&) {
      return scan_tracks(in_.prober, y, step, 2);
    }
  }();
  if (s.spt != z.spt) return false;
  if (!s.exact) return true;
  // Same track size, but the track starts elsewhere: slipped sectors before it.
  slips_.localize(P);
  return true;
}

std::optional<TrackScan> ZoneSearch::track_from(std::uint64_t y, std::uint32_t near_spt) {
  const std::uint64_t total = in_.target.sectors();
  const int reps = std::max(5, in_.prober.repeats() + 2);
  const std::uint64_t k = near_spt / 2;
  if (y + 3 * near_spt >= total) return std::nullopt;
  const double ph0 = in_.prober.phase(y, reps);
  const double turn = wrap_unit(in_.prober.phase(y + k, reps) - ph0);
  if (!(turn > 0.2 && turn < 0.8)) return std::nullopt;
  const auto spt = static_cast<std::uint32_t>(std::lround(static_cast<double>(k) / turn));
  if (spt < 2 || spt == near_spt) return std::nullopt;
  // The track's last sector where that size puts it, and a skew at the next.
  const double last = in_.prober.phase(y + spt - 1, reps);
  if (std::fabs(wrap_half(last - ph0 - (spt - 1.0) / spt)) >= 0.5 / spt) return std::nullopt;
  double skew = wrap_unit(in_.prober.phase(y + spt, reps) - last - 1.0 / spt) * spt;
  if (skew > spt - 0.5) skew -= spt;
  if (std::fabs(skew) < 0.5) return std::nullopt;  // no boundary to see: scan instead
  TrackScan s;
  s.spt = spt;
  s.step = 1.0 / spt;
  s.exact = true;
  s.boundaries = {y, y + spt};
  s.skews = {0.0, skew};
  return s;
}

int ZoneSearch::data_tracks(const ZoneLayout& z, std::int64_t c) {
  const Layout& L = f_.result.layout;
  const std::uint64_t total = in_.target.sectors();
  if (L.heads < 2 || !L.has_data(c, 0)) return L.heads;
  const std::uint64_t y0 = L.lba(c, 0, 0);
  if (L.lba(c, L.heads - 1, z.spt - 1) >= total) return L.heads;
  const double ph0 = slips_.phase(y0, std::max(5, in_.prober.repeats() + 2));
  // Both ends of the track must follow: a sector of the next zone matches one by chance.
  auto follows = [&](std::int32_t h) {
    return slips_.consistent(y0, ph0, L.lba(c, h, 0)) && slips_.consistent(y0, ph0, L.lba(c, h, z.spt - 1));
  };
  if (follows(L.heads - 1)) return L.heads;
  std::int32_t lo = 0, hi = L.heads - 1;
  while (hi - lo > 1) {
    const std::int32_t mid = lo + (hi - lo) / 2;
    (follows(mid) ? lo : hi) = mid;
  }
  return hi;
}

void ZoneSearch::close_zones(std::size_t zi, const std::string& why, std::int64_t confirmed) {
  Layout& L = f_.result.layout;
  const std::uint64_t total = in_.target.sectors();
  L.zones.resize(zi + 1);
  ZoneLayout& z = L.zones[zi];
  const std::uint64_t first_lba = L.zone_first_lba(z);
  const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * z.spt;
  // As many cylinders as hold the rest of the device at this zone's track size.
  auto n = static_cast<std::int64_t>((total - first_lba) / per_cyl);
  while (L.lba_of_pba(z.first_pba + static_cast<std::uint64_t>(n) * per_cyl) < total) ++n;
  z.cylinders = std::max<std::int64_t>(1, n);
  // What was confirmed: zone zi's track size over its first `confirmed` + 1 cylinders.
  const std::uint64_t seen = std::min<std::uint64_t>(
      total, L.lba_of_pba(z.first_pba + static_cast<std::uint64_t>(confirmed + 1) * per_cyl));
  f_.zones_unsearched = seen;
  f_.measured_end = z.first_cylinder + confirmed + 1;
  in_.note(fmt::format("zones: {}; zone {} ({} sectors per track from cylinder {}) was confirmed over {} cylinders, to LBA "
                       "{} ({:.0f} % of the device), and is taken to run to the end of the device: the zones, spare "
                       "tracks and slipped sectors past LBA {} are not measured (the step's {:.0f} s: {} tests of a "
                       "cylinder, {} of them with a track scan; {} slip searches, {:.0f} s; {} zone crossings, {:.0f} s)",
                       why, zi, z.spt, z.first_cylinder, confirmed + 1, seen,
                       100.0 * static_cast<double>(seen) / static_cast<double>(total), seen,
                       (in_.elapsed() - zones_start_) / 1000.0, spent_.tests, spent_.scans, slips_.searches,
                       slips_.search_ms / 1000.0, spent_.crossings, spent_.crossing_ms / 1000.0));
}

void ZoneSearch::run() {
  in_.step("zones");
  zones_start_ = in_.elapsed();
  in_.deadline = kZonesEnd * in_.options.budget_ms;
  Layout& L = f_.result.layout;
  const std::uint64_t total = in_.target.sectors();
  f_.zones_unsearched = total;
  std::size_t zi = 0;
  // A zone whose end proved inconsistent is searched again from that end, twice at most.
  std::int64_t resume = 0;
  int retries = 0;
  while (true) {
    at_zone_start_ = L;
    verified_at_start_ = f_.verified;
    confirmed_ = 0;
    try {
      if (!search_zone(zi, resume)) break;
      ++zi;
      resume = 0;
      retries = 0;
      if (L.zones.size() > 512) throw std::runtime_error("more than 512 zones: not a zoned disk layout");
    } catch (const ZoneEndInconsistent& e) {
      // Real time once stopped at zone 0's cylinder 64 this way: the gallop's test there
      // read "no" on a noisy host, and the scan past the end found zone 0's track size.
      if (retries < 2) {
        ++retries;
        in_.note(fmt::format("{}: zone {} searched again from cylinder {}", e.what, zi,
                             L.zones[zi].first_cylinder + e.cylinders));
        L = at_zone_start_;
        f_.verified = verified_at_start_;
        resume = e.cylinders;
        continue;
      }
      not_timed(zi, e.what);
      break;
    } catch (const OutOfTime&) {
      stop(zi, fmt::format("out of its time ({:.0f} s of the {:.0f} s budget spent; the steps after it need the rest)",
                           in_.elapsed() / 1000.0, in_.options.budget_ms / 1000.0));
      break;
    } catch (const TimingNoiseError& e) {
      not_timed(zi, e.what());
      break;
    }
  }
  in_.deadline.reset();
  if (f_.zones_unsearched >= total)
    in_.note(fmt::format("zones: all {} measured in {:.0f} s ({} tests of a cylinder, {} of them with a track scan; {} "
                         "slip searches, {:.0f} s; {} zone crossings, {:.0f} s)",
                         L.zones.size(), (in_.elapsed() - zones_start_) / 1000.0, spent_.tests, spent_.scans,
                         slips_.searches, slips_.search_ms / 1000.0, spent_.crossings, spent_.crossing_ms / 1000.0));
  if (crossings_cut_ > 0)
    in_.note(fmt::format("zones: past its share of the budget ({:.0f} s), {} zone crossings were counted from fewer "
                         "seeks (three crossings, not four, or no second round for a close call); a longer --budget "
                         "measures more",
                         share_ * in_.options.budget_ms / 1000.0, crossings_cut_));
  in_.tick(1.0);
}

// A zone whose search runs out of time, or cannot see the structure it looks for, ends
// the search there: the layout as it was at the zone's start, the zone to the end.
void ZoneSearch::stop(std::size_t zi, const std::string& why) {
  f_.result.layout = at_zone_start_;
  f_.verified = verified_at_start_;
  close_zones(zi, why, confirmed_);
}

void ZoneSearch::not_timed(std::size_t zi, const std::string& what) {
  stop(zi, fmt::format("zone {} could not be timed: {} (completion jitter {:.3f} ms, {:.0f} % of completions late)",
                       zi, what, in_.prober.period_estimate().jitter_ms, 100 * in_.prober.late_fraction()));
}

// Zone zi's cylinders by galloping, then bisecting: in_zone(lo) holds, in_zone(hi) does
// not. (Searched again: from `resume`, the cylinder read as past the end, tested once
// more.)
std::int64_t ZoneSearch::zone_cylinders(std::size_t zi, std::int64_t resume) {
  Layout& L = f_.result.layout;
  const std::uint64_t total = in_.target.sectors();
  ZoneLayout& z = L.zones[zi];
  const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * z.spt;
  const std::uint64_t first_lba = L.zone_first_lba(z);
  const auto avail = static_cast<std::int64_t>((total - first_lba) / per_cyl + 2);
  std::int64_t lo = 0, hi = avail;
  // (Within a zone, what each test of a cylinder found stands: the layout after the last
  // one that returned, slipped tracks and sectors included.)
  auto tested = [&](std::int64_t n, bool in) {
    at_zone_start_ = L;
    verified_at_start_ = f_.verified;
    if (in) confirmed_ = std::max(confirmed_, n);
    return in;
  };
  for (std::int64_t n = resume > 0 && resume < avail ? resume : 1; n < avail; n *= 2) {
    if (tested(n, in_zone(z, n))) {
      lo = n;
    } else {
      hi = n;
      break;
    }
    in_.tick(std::min(1.0, static_cast<double>(first_lba + static_cast<std::uint64_t>(n) * per_cyl) /
                               static_cast<double>(total)));
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (tested(mid, in_zone(L.zones[zi], mid)) ? lo : hi) = mid;
  }
  return hi;
}

// Zone zi from its first cylinder: its cylinders, the spare tracks after its data, and
// the next zone (added to the layout). False: the device ends in zone zi.
bool ZoneSearch::search_zone(std::size_t zi, std::int64_t resume) {
  if (in_.elapsed() > kZonesEnd * in_.options.budget_ms) throw OutOfTime{};
  Layout& L = f_.result.layout;
  const std::uint64_t total = in_.target.sectors();
  const std::int64_t hi = zone_cylinders(zi, resume);
  ZoneLayout& zz = L.zones[zi];
  const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * zz.spt;
  zz.cylinders = hi;
  const std::int64_t last_c = zz.first_cylinder + hi - 1;
  // The zone's data may end before its last cylinder does: spare tracks follow.
  const int k = data_tracks(zz, last_c);
  const std::uint64_t end_pba = L.pba(last_c, 0, 0) + static_cast<std::uint64_t>(k) * zz.spt;
  const std::uint64_t next = L.lba_of_pba(end_pba);
  in_.tick(std::min(1.0, static_cast<double>(next) / static_cast<double>(total)));
  if (next >= total) {
    if (next > total)
      in_.note(fmt::format("the last cylinder is partial: the device ends {} sectors into it, or "
                           "slipped sectors at its very end",
                           total - L.lba_of_pba(end_pba - per_cyl)));
    return false;
  }
  check_last_track(zz, end_pba);
  const std::uint64_t start_lba = L.lba_of_pba(end_pba);
  const TrackScan s = next_zone_scan(zi, start_lba, k);
  std::optional<std::size_t> at;
  for (std::size_t i = 0; i < s.boundaries.size(); ++i)
    if (s.boundaries[i] == start_lba) at = i;
  if (s.exact && !at)
    in_.note(fmt::format("no track boundary at LBA {} where zone {} should start", start_lba, zi + 1));
  // Spare tracks at the zone's end hold no LBA: the next LBA lies a seek away.
  zones_progress_ = static_cast<double>(start_lba) / static_cast<double>(total);
  const std::int64_t d = crossing_distance(zz, last_c, start_lba, s.spt);
  const std::uint64_t spare = static_cast<std::uint64_t>(L.heads - k) +
                              static_cast<std::uint64_t>(d - 1) * static_cast<std::uint64_t>(L.heads);
  if (spare > 0) {
    L.add_hole(end_pba, spare * zz.spt, HoleKind::SpareTracks);
    zz.cylinders += d - 1;
    in_.note(fmt::format("zone {}: its data ends on head {} of cylinder {}; {} spare tracks follow (the next "
                         "LBA is {} cylinders on, by its seek time)",
                         zi, k - 1, last_c, spare, d));
  }
  const ZoneLayout nz = next_zone(zz, s, at, start_lba, spare > 0);
  f_.verified.insert(nz.first_pba);
  L.zones.push_back(nz);
  return true;
}

// The last track of zone z (its data ending at end_pba) starts where predicted, and
// ends where predicted: LBA next - 1 is its last sector, unless slipped sectors in it
// (found now) end it earlier.
void ZoneSearch::check_last_track(const ZoneLayout& z, std::uint64_t end_pba) {
  const Layout& L = f_.result.layout;
  const std::uint64_t last_track = end_pba - z.spt;
  if (!f_.verified.count(last_track) && !slips_.aligned(last_track)) slips_.localize(last_track);
  f_.verified.insert(last_track);
  const std::uint64_t y_lt = L.lba_of_pba(last_track);
  const double ph_lt = slips_.phase(y_lt, std::max(5, in_.prober.repeats() + 2));
  slips_.localize_track(last_track, [&] { return slips_.consistent(y_lt, ph_lt, L.lba_of_pba(end_pba) - 1); });
}

// The next zone's track size from a scan that starts on the old zone's last sector
// (scanning further back would mix the two zones' sector steps). (The old zone's sector
// step as the hint: zones next to each other differ little.) When the data ends inside
// a cylinder (k of its heads), start_lba is a track start for certain: the track size
// then follows from two phases and is checked at the track's end.
TrackScan ZoneSearch::next_zone_scan(std::size_t zi, std::uint64_t start_lba, int k) {
  const Layout& L = f_.result.layout;
  const ZoneLayout& zz = L.zones[zi];
  const std::uint32_t old_spt = zz.spt;
  std::optional<TrackScan> quick;
  if (k < L.heads) quick = track_from(start_lba, old_spt);
  const TrackScan s = quick ? *quick : scan_tracks(in_.prober, start_lba - 1, 1.0 / old_spt, 2);
  if (s.spt == old_spt)
    throw ZoneEndInconsistent{
        zz.cylinders, fmt::format("zone search is inconsistent at LBA {}: cylinder {} does not continue zone {} but "
                                  "has its track size ({}); an irregular layout",
                                  start_lba, zz.first_cylinder + zz.cylinders, zi, old_spt)};
  return s;
}

// The zone after z, from the scan s at its start (start_lba; `at`: the scan's boundary
// there) with its first skews (refined in the skews step): the boundary at the zone
// start skews like a cylinder switch, the others inside the first cylinder like track
// switches. After spare tracks the zone's first track is placed on its own, not by a
// switch: its cylinder skew is measured at its second cylinder instead.
ZoneLayout ZoneSearch::next_zone(const ZoneLayout& zz, const TrackScan& s, std::optional<std::size_t> at,
                                 std::uint64_t start_lba, bool after_spares) {
  const Layout& L = f_.result.layout;
  const std::uint64_t total = in_.target.sectors();
  const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * zz.spt;
  ZoneLayout nz;
  nz.first_cylinder = zz.first_cylinder + zz.cylinders;
  nz.first_pba = zz.first_pba + static_cast<std::uint64_t>(zz.cylinders) * per_cyl;
  nz.spt = s.spt;
  if (after_spares && start_lba + 2 * static_cast<std::uint64_t>(L.heads) * nz.spt < total)
    nz.cylinder_skew = in_.first_skew(measure_skew(in_.prober, start_lba + static_cast<std::uint64_t>(L.heads) * nz.spt,
                                                   1.0 / nz.spt, 3, 0));
  else if (at)
    nz.cylinder_skew = in_.first_skew(s.skews[*at] - gap_before(f_.result.layout, s.boundaries[*at]));
  std::vector<double> ts;
  for (std::size_t i = 0; i < s.boundaries.size(); ++i)
    if (!at || i > *at) ts.push_back(s.skews[i] - gap_before(f_.result.layout, s.boundaries[i]));
  // On a noisy host, one late read among the scan's one or two track switches made
  // this skew 1-5 sectors wrong, and every slip search in the zone then failed (the
  // error adds up once per track crossed): the median of more switches of the zone's
  // first cylinder instead.
  if (L.heads > 1 && (in_.prober.noisy() || in_.prober.repeats() > 1))
    for (std::int32_t h = 2; h <= std::min<std::int32_t>(L.heads - 1, 4); ++h) {
      const std::uint64_t y = start_lba + static_cast<std::uint64_t>(h) * nz.spt;
      if (y + nz.spt >= total) break;
      ts.push_back(measure_skew(in_.prober, y, 1.0 / nz.spt, 1, 0));
    }
  if (!ts.empty() && L.heads > 1) nz.track_skew = in_.first_skew(median(ts));
  return nz;
}

void find_zones(Instrument& in, Findings& f, double share) { ZoneSearch(in, f, share).run(); }

}  // namespace disksched::extract
