#include "tools/extract/extractor.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>
#include <optional>
#include <map>
#include <set>
#include <random>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "predictor/disk_model.hpp"
#include "tools/extract/cache_defeat.hpp"
#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/progress.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {
namespace {

// A skew within this many sectors of a whole number is taken to be that number:
// drives skew by whole sectors, and the cumulative skew model multiplies any error by
// the number of tracks crossed.
constexpr double kSnapSectors = 0.2;

double snap(double sectors) {
  const double r = std::round(sectors) + 0.0;  // + 0.0: no "-0" in the profile
  return std::fabs(sectors - r) <= kSnapSectors ? r : std::round(sectors * 100.0) / 100.0;
}

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

class Extraction {
 public:
  // `started`: when the extraction began on the target's clock (the budget counts from
  // there: a first attempt that a cache answered and the cache check are spent from it).
  Extraction(ProbeTarget& t, const ExtractOptions& o, const CacheFindings& cache, CacheDefeat* defeat,
             Millis started)
      : t_(t),
        o_(o),
        // Behind a cache defeat, reference reads are several turns apart: the time of the
        // sector just behind (a turn less one sector) tells the fit how many.
        p_(t, ProberOptions{o.reference_lba, 3000.0, 0.05, defeat ? cache.behind_ms : 0.0}),
        rng_(o.seed),
        progress_(o.progress, {"period", "tracks", "heads", "zones", "skews", "switch", "seek",
                               "writes", "validate"}),
        start_(started),
        defeat_(defeat),
        cache_(cache) {}

  ExtractResult run();

  Millis elapsed() { return t_.now_ms() - start_; }
 private:
  Millis left() { return o_.budget_ms - elapsed(); }
  void tick(double fraction) { progress_.update(fraction, elapsed(), o_.budget_ms); }
  void note(const std::string& s) {
    r_.notes.push_back(s);
    progress_.note("extract: " + s);
  }
  std::uint64_t rand_below(std::uint64_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_);
  }
  double tau(std::uint32_t spt) const { return p_.period() / spt; }
  // A skew found on the way (heads and zones steps): where the timing is noisy enough to
  // take several reads a phase, a quarter of a sector off, multiplied by the tracks that
  // the tests of a cylinder cross, sends them astray, so whole sectors until the skews
  // step measures them.
  double first_skew(double sectors) const {
    return p_.noisy() || p_.repeats() > 1 ? std::round(sectors) + 0.0 : snap(sectors);
  }

  void choose_completion_wait();
  void measure_period();
  void first_tracks();
  void find_heads();
  void find_zones();
  void measure_skews();
  void measure_switches();
  void measure_seeks();
  void measure_writes();
  void build_profile();
  void validate();

  // Smallest slack to reach dst from src (ms), see Prober::reach_threshold.
  Millis reach(std::uint64_t src, std::uint64_t dst, Millis lo, Millis hi, Op op = Op::Read);
  // A reach pair as it is measured: the other way round when dst is in src's read-ahead
  // (see reach).
  struct Move {
    std::uint64_t src, dst;
  };
  Move oriented(Move m);
  // Move time (seek / head switch) from src's track to dst's track.
  Millis move_time(std::uint64_t src, std::uint64_t dst, std::uint32_t dst_spt, Millis guess);
  bool in_zone(const ZoneLayout& z, std::int64_t n);
  // How many tracks of cylinder c (the zone's last) hold the zone's data.
  int data_tracks(const ZoneLayout& z, std::int64_t c);
  // The size of the track that starts at LBA y (a track start for certain), from the
  // phase half a track on (near_spt: a size close to it), when the track's end and the
  // skew after it confirm it; nothing when they do not (scan instead).
  std::optional<TrackScan> track_from(std::uint64_t y, std::uint32_t near_spt);
  // Cylinders from c (the zone's last with data) to the next zone's first, whose first
  // LBA is `next`: its seek time matched against seeks inside the zone.
  std::int64_t crossing_distance(const ZoneLayout& z, std::int64_t c, std::uint64_t next, std::uint32_t next_spt);

  // Slipped sectors (reference notes §5: defect holes look like skews). The layout's
  // predictions are checked at track starts; a track start whose LBA is off is
  // explained by locating the slipped sectors before it.
  // nullopt across spare tracks: the next zone's angle is its own.
  std::optional<double> expected_delta(std::uint64_t p1, std::uint64_t p2) const;
  // `phase_out`: the phase of the track's first LBA read on the way (when read).
  bool aligned(std::uint64_t track_pba, double* phase_out = nullptr);
  // `tolerance`: sectors (half a sector tells a slipped sector; a test between layouts a
  // whole skew apart may allow more).
  bool consistent(std::uint64_t y0, double phase0, std::uint64_t y, double tolerance = 0.5);
  void localize_track(std::uint64_t track_pba, const std::function<bool()>& done);
  void localize(std::uint64_t bad_track_pba);
  int gap_before(std::uint64_t lba) const;

  ProbeTarget& t_;
  const ExtractOptions& o_;
  Prober p_;
  std::mt19937_64 rng_;
  Progress progress_;
  ExtractResult r_;
  Millis start_ = 0;
  int votes_ = 1;
  double step0_ = 0;      // rotations per sector in zone 0
  std::uint32_t spt0_ = 0;
  bool boundaries_visible_ = true;
  Millis head_switch_ = 0, head_switch_guess_ = 0;
  Millis write_overhead_ = -1, write_completion_ = 0;
  TrackScan scan0_;
  std::set<std::uint64_t> verified_{0};  // track-start PBAs whose LBA is confirmed
  CacheDefeat* defeat_ = nullptr;
  CacheFindings cache_;
  std::uint64_t turned_round_ = 0;  // reach pairs measured the other way round
  std::int64_t last_spare_cylinders_ = 0;  // before the zone last found (a first guess)
  // Seeks inside zones, outwards onto a zone's last cylinder (every sample: the
  // spare-cylinder counts fit a curve through them).
  std::vector<SeekPoint> inside_seeks_;
  // The zones step's share of the budget: past it, a zone crossing is counted from the
  // seeks first measured, without re-measuring close calls or searching again.
  Millis zones_start_ = 0;
  // Unless, from how far it has got (zones_progress_, the share of the device's LBAs
  // searched), the step at its pace so far would end before 60 % of the budget: then the
  // rest of the budget has room for full crossings (real time, BUDGET=900: the zones
  // step measured all 8 zones in 354 s and the run ended after 537 s, with two of the
  // crossings counted from the fewer seeks one off).
  bool zones_over_share() {
    const Millis spent = elapsed() - zones_start_;
    if (spent <= 0.25 * o_.budget_ms) return false;
    if (zones_progress_ > 0.05 && (elapsed() - spent) + spent / zones_progress_ < 0.6 * o_.budget_ms) return false;
    return true;
  }
  double zones_progress_ = 0;
  int crossings_cut_ = 0;
  // The zones step ends, wherever its search has got to, once this much of the budget
  // is spent (counted from the run's start): the steps after it need the rest.
  static constexpr double kZonesEnd = 0.85;
  static constexpr double kCloseCallsEnd = 0.7;
  struct ZonesOutOfTime {};
  // The cylinder a zone's search took for the first past its end shows the zone's own
  // track size after all: one test of it (or one before) was read wrong.
  struct ZoneEndInconsistent {
    std::int64_t cylinders;  // the zone's cylinders as the search had it
    std::string what;
  };
  void zones_check_time() {
    if (in_zones_ && elapsed() > kZonesEnd * o_.budget_ms) throw ZonesOutOfTime{};
  }
  bool in_zones_ = false;
  // Where the zones step's time goes (in its note when it stops early): tests of a
  // cylinder, track scans among them, slip searches and zone crossings, and their time.
  struct ZonesSpent {
    int tests = 0, scans = 0, searches = 0, crossings = 0;
    Millis search_ms = 0, crossing_ms = 0;
  } spent_;
  // Adds the time from its construction to its end (or an exception through it).
  struct Timed {
    Extraction& x;
    Millis& into;
    Millis start;
    Timed(Extraction& e, Millis& m) : x(e), into(m), start(e.elapsed()) {}
    ~Timed() { into += x.elapsed() - start; }
  };
  // The first LBA the zones step did not search (the device's size when it searched all).
  std::uint64_t zones_unsearched_ = 0;
  // Cylinders from this one on were not measured (the zones step stopped before them):
  // the skews, switch and seek steps sample below it.
  std::int64_t measured_end_ = std::numeric_limits<std::int64_t>::max();
  // Cylinders of zone z that the steps after the zones step may sample.
  std::int64_t sampled_cylinders(const ZoneLayout& z) const {
    return std::max<std::int64_t>(0, std::min(z.cylinders, measured_end_ - z.first_cylinder));
  }
  // The zones step stops in zone zi (out of time, or a structure it could not see): the
  // zone is taken to run to the end of the device, and a note says from where nothing
  // was measured. `confirmed`: cylinders past the zone's first found in it.
  void close_zones(std::size_t zi, const std::string& why, std::int64_t confirmed);
};

Millis Extraction::reach(std::uint64_t src, std::uint64_t dst, Millis lo, Millis hi, Op op) {
  // A dst a little past src would be served by src's read-ahead: measure from dst's
  // track to src's instead. The move is the same (a track's own sectors, a head switch
  // or a seek cost the same either way) and the dst then lies behind the head.
  if (defeat_ && op == Op::Read && defeat_->ahead_of(src, dst)) {
    std::swap(src, dst);
    ++turned_round_;
  }
  const double ph = p_.phase(dst, 0, op);
  return p_.reach_threshold(src, dst, ph, lo, hi, o_.resolution_ms, votes_, op);
}

Extraction::Move Extraction::oriented(Move m) {
  if (defeat_ && defeat_->ahead_of(m.src, m.dst)) {
    std::swap(m.src, m.dst);
    ++turned_round_;
  }
  return m;
}

Millis Extraction::move_time(std::uint64_t src, std::uint64_t dst, std::uint32_t dst_spt, Millis guess) {
  const Millis base = tau(dst_spt) + r_.dead_time_ms;
  const Millis s = reach(src, dst, base + guess - 0.3, base + guess + 1.0);
  return s - base;
}

// Spinning for completions saves the wake-up; blocking leaves the core to the server.
// Which one times completions better depends on the machine: try both on back-to-back
// reads of the reference and keep the one with more whole revolutions.
void Extraction::choose_completion_wait() {
  if (!t_.set_spin_wait(false)) return;
  const Millis tight = 0.03;
  auto clean_turns = [&] {
    std::vector<Millis> t;
    for (int i = 0; i < 41; ++i) t.push_back(t_.read(o_.reference_lba, 1).complete_ms);
    std::vector<double> d;
    for (std::size_t i = 1; i < t.size(); ++i) d.push_back(t[i] - t[i - 1]);
    const double m = median(d);
    return static_cast<int>(std::count_if(d.begin(), d.end(), [&](double x) { return std::fabs(x - m) <= tight; }));
  };
  t_.read(o_.reference_lba, 1);
  const int blocking = clean_turns();
  t_.set_spin_wait(true);
  const int spinning = clean_turns();
  const bool spin = spinning > blocking;
  t_.set_spin_wait(spin);
  note(fmt::format("waiting for completions by {}: {} of 40 back-to-back reads landed within {:.0f} us of "
                   "a whole revolution spinning, {} blocking",
                   spin ? "spinning" : "blocking", spinning, 1000 * tight, blocking));
}

void Extraction::measure_period() {
  progress_.step("period", elapsed(), o_.budget_ms);
  choose_completion_wait();
  const int reads = static_cast<int>(std::clamp(o_.budget_ms / 1000.0, 60.0, 200.0));
  if (auto floor = t_.null_round_trip_ms()) {
    std::vector<double> v{*floor};
    for (int i = 0; i < 49; ++i) v.push_back(*t_.null_round_trip_ms());
    r_.host_floor_ms = median(v);
  } else {
    note("the host path's own round trip cannot be measured for this target; overheads "
         "include it");
  }
  r_.period = p_.measure_period(reads);
  votes_ = r_.period.jitter_ms > 0.002 ? 3 : 1;
  if (p_.noisy() || !p_.flags_trusted())
    note(fmt::format("noisy host timing: {:.0f} % of reference completions late, {:.0f} % of probes "
                     "preempted{}; taking the densest of more reads per phase and one hit per reach "
                     "decision{}",
                     100 * r_.period.late_fraction, 100 * r_.period.flagged_fraction,
                     p_.flags_trusted() ? "" : " (too many to repeat them)",
                     o_.timing_advice.empty() ? "" : "; to time it better: " + o_.timing_advice));
  tick(1.0);
  if (!defeat_)
    note(fmt::format("no drive cache answered: back-to-back reads of sector {} took a revolution each",
                     o_.reference_lba));
  const double rpm = 60000.0 / r_.period.period_ms;
  if (o_.seeds.nominal_rpm) {
    const double dev = rpm / *o_.seeds.nominal_rpm - 1.0;
    note(fmt::format("measured {:.1f} rpm, nominal {} rpm ({:+.2f} %)", rpm, *o_.seeds.nominal_rpm,
                     100 * dev));
    if (std::fabs(dev) > 0.01)
      note("measured speed differs from the nominal by more than 1 %: check that the drive's "
           "caches are off and nothing else uses the device");
  }
}

void Extraction::first_tracks() {
  progress_.step("tracks", elapsed(), o_.budget_ms);
  step0_ = rough_step(p_, 0);
  p_.set_repeats(repeats_for(p_, step0_));
  tick(0.3);
  TrackScan s = scan_tracks(p_, 0, step0_, 2);
  if (!s.exact && !s.boundaries.empty() && (p_.noisy() || p_.repeats() > 1)) {
    // On a noisy host one boundary's check can fail, and a scan left with one reads as a
    // disk whose skews do not show: no heads are found then, and the rest is measured as
    // one head (busy seed 105 of 200 in virtual time). Once more, heavier and over a
    // track more. (A disk without skews shows none at all.)
    const int r = p_.repeats();
    p_.set_repeats(std::max(5, r + 2));
    s = scan_tracks(p_, 0, step0_, 3);
    p_.set_repeats(r);
  }
  spt0_ = s.spt;
  step0_ = 1.0 / spt0_;
  p_.set_repeats(repeats_for(p_, step0_));
  boundaries_visible_ = s.exact;
  if (!s.exact)
    note(fmt::format("no track skew visible near LBA 0: {} sectors per track from the phase step; "
                     "tracks are taken to start at multiples of it",
                     spt0_));
  if (o_.seeds.sectors_per_track && *o_.seeds.sectors_per_track != static_cast<int>(spt0_))
    note(fmt::format("MODE SENSE page 03h says {} sectors per track, timing finds {} at LBA 0",
                     *o_.seeds.sectors_per_track, spt0_));
  tick(0.8);
  scan0_ = s;
  // Dead time: reach a sector half a track ahead on the same track (tracks between
  // the boundaries found, which hold no hole big enough to matter here).
  std::vector<double> dead;
  std::vector<std::uint64_t> starts;
  for (std::size_t i = 0; i + 1 < s.boundaries.size() && starts.size() < 3; ++i) starts.push_back(s.boundaries[i]);
  for (std::uint64_t k = 1; starts.size() < 3; ++k) starts.push_back(k * spt0_);
  for (std::uint64_t start : starts) {
    const std::uint64_t src = start + 1, dst = src + spt0_ / 2;
    dead.push_back(reach(src, dst, 0.0, p_.period()) - tau(spt0_));
  }
  r_.dead_time_ms = median(dead);
  tick(1.0);
}

int Extraction::gap_before(std::uint64_t lba) const {
  const Layout& L = r_.layout;
  if (lba == 0) return 0;
  return static_cast<int>(L.pba_of_lba(lba) - L.pba_of_lba(lba - 1) - 1);
}

std::optional<double> Extraction::expected_delta(std::uint64_t p1, std::uint64_t p2) const {
  // Angle from the end of sector p1 to the end of sector p2 (p1 < p2, a cylinder or so
  // apart at most), from the skews known so far.
  const Layout& L = r_.layout;
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

bool Extraction::aligned(std::uint64_t track_pba, double* phase_out) {
  const Layout& L = r_.layout;
  const std::uint64_t good = L.next_good(track_pba);
  const std::uint64_t y = L.lba_of_pba(good);
  if (y == 0 || y >= t_.sectors()) return true;
  const std::uint64_t p0 = L.pba_of_lba(y - 1);
  const double step = 1.0 / L.zone_of_pba(good).spt;
  const auto expected = expected_delta(p0, good);
  if (!expected) return true;  // after spare tracks: nothing to compare with
  const double want = *expected;
  // A "no" starts a search for slipped sectors: confirm it with more reads first, so
  // that one preempted completion cannot invent a defect.
  for (int reps : {p_.repeats(), std::max(5, p_.repeats() + 2)}) {
    const double ph = p_.phase(y, reps);
    if (phase_out) *phase_out = ph;
    if (std::fabs(wrap_half(ph - p_.phase(y - 1, reps) - want)) < 0.5 * step) return true;
  }
  return false;
}

bool Extraction::consistent(std::uint64_t y0, double phase0, std::uint64_t y, double tolerance) {
  const Layout& L = r_.layout;
  const double step = 1.0 / L.zone_of_pba(L.pba_of_lba(y)).spt;
  const auto expected = expected_delta(L.pba_of_lba(y0), L.pba_of_lba(y));
  if (!expected) return true;
  const double want = *expected;
  const int reps = std::max(5, p_.repeats() + 2);
  double err = 0.0;
  for (int n : {p_.repeats(), reps}) {
    err = std::fabs(wrap_half(p_.phase(y, n) - phase0 - want)) / step;
    if (err < tolerance) return true;
  }
  // Off by less than a slipped sector is: the anchor, read seconds ago, may be off by
  // more than half a sector on a real-time host, whose timing wanders (a pair read back
  // to back is not). Once more against the anchor read again just before.
  if (err > tolerance + 0.35) return false;
  const double anchor = p_.phase(y0, reps);
  return std::fabs(wrap_half(p_.phase(y, reps) - anchor - want)) < tolerance * step;
}

void Extraction::localize_track(std::uint64_t track_pba, const std::function<bool()>& done) {
  Layout& L = r_.layout;
  const std::uint32_t spt = L.zone_of_pba(track_pba).spt;
  for (std::uint32_t k = 0; k <= spt; ++k) {
    zones_check_time();
    if (done()) return;
    const std::uint64_t first = L.next_good(track_pba);
    const std::uint64_t y0 = L.lba_of_pba(first);
    const std::uint64_t ye = L.lba_of_pba(track_pba + spt) - 1;
    if (ye <= y0 || first >= track_pba + spt) break;
    const double ph0 = p_.phase(y0, std::max(5, p_.repeats() + 2));
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

void Extraction::localize(std::uint64_t bad) {
  ++spent_.searches;
  const Timed timed(*this, spent_.search_ms);
  const Layout& L = r_.layout;
  const std::uint64_t target = bad;
  int retries = 0;
  for (int found = 0; found < 64; ++found) {
    zones_check_time();
    auto it = verified_.lower_bound(bad);
    std::uint64_t good = it == verified_.begin() ? 0 : *std::prev(it);
    // Bisect over cylinder starts first: a slipped track shows only where the cylinder
    // switches fall (the track switches between look alike), a slipped sector anywhere.
    const ZoneLayout& z = L.zone_of_pba(bad);
    std::int64_t cg = L.chs(good).cylinder, cb = L.chs(bad).cylinder;
    while (cb - cg > 1) {
      const std::int64_t mid = cg + (cb - cg) / 2;
      const std::uint64_t m = L.pba(mid, 0, 0);
      if (aligned(m)) {
        verified_.insert(m);
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
    const double ph0 = p_.phase(y0, std::max(5, p_.repeats() + 2));
    std::uint64_t lo = 0, hi = std::max<std::uint64_t>(1, (bad - good) / z.spt);  // lo follows, hi not
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (consistent(y0, ph0, L.lba_of_pba(good + mid * z.spt)) ? lo : hi) = mid;
    }
    const std::uint64_t first_off = good + hi * z.spt;
    // A slipped track: the LBAs from first_off on lie a track later, as a whole.
    const std::uint64_t y = L.lba_of_pba(first_off);
    Layout& W = r_.layout;
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
        verified_.insert(first_off + z.spt);
        if (aligned(target)) return;
        bad = target;
        continue;
      }
      W.remove_hole(first_off);
    }
    // Otherwise slipped sectors in the track before it. Neither fitting can be one late
    // read (in the bisection or the anchor): the search is made again from the start,
    // twice at most, with the layout as it was.
    const Layout before = r_.layout;
    try {
      localize_track(first_off - z.spt, [&] { return aligned(first_off); });
    } catch (const TimingNoiseError&) {
      r_.layout = before;
      if (++retries > 2) throw;
      bad = target;
      continue;
    }
    verified_.insert(first_off);
    if (aligned(target)) return;
    bad = target;
  }
  throw TimingNoiseError(fmt::format("irregular layout: more than 64 slipped tracks or sectors before "
                                     "cylinder {} head {}, or the timing is too noisy",
                                     L.chs(target).cylinder, L.chs(target).head));
}

void Extraction::find_heads() {
  progress_.step("heads", elapsed(), o_.budget_ms);
  Layout& L = r_.layout;
  L.sectors = t_.sectors();
  std::vector<Boundary> walk;
  BoundaryClasses c;
  const double noise_sectors = p_.phase_noise() / step0_ / std::sqrt(static_cast<double>(p_.repeats()));
  // Zone 0 as far as it is known; every boundary a track switch until heads are known.
  L.heads = 1 << 20;
  ZoneLayout z0;
  z0.spt = spt0_;
  L.zones = {z0};
  if (boundaries_visible_) {
    int want = 24;
    std::size_t checked = 0;
    while (want <= 256) {
      const std::uint64_t from = walk.empty() ? 0 : walk.back().lba;
      auto more = walk_boundaries(p_, from, spt0_, step0_, want - static_cast<int>(walk.size()));
      walk.insert(walk.end(), more.begin(), more.end());
      // A track shorter than the rest holds slipped sectors: find them, so that the
      // boundary skews can be corrected for the holes next to them.
      for (; checked < walk.size(); ++checked) {
        const std::uint64_t next = (checked + 1) * spt0_;
        const std::uint64_t want_lba = walk[checked].lba;
        if (L.lba_of_pba(next) != want_lba) {
          if (L.lba_of_pba(next) < want_lba)
            throw std::runtime_error(fmt::format(
                "track {} is longer than {} sectors (it ends at LBA {}): spare sectors or an "
                "irregular layout",
                checked, spt0_, want_lba));
          localize_track(checked * spt0_, [&] { return L.lba_of_pba(next) == want_lba; });
        }
        walk[checked].skew -= gap_before(walk[checked].lba);
      }
      std::vector<double> skews;
      for (const auto& b : walk) skews.push_back(b.skew);
      c = classify_boundaries(skews, std::max(1.0, 6.0 * noise_sectors));
      if (c.heads == 0 && c.why.find("two classes") != std::string::npos) {
        // Two kinds of skew but no period: a noisy read spoiled one. Measure them all
        // again with more reads each.
        skews.clear();
        const int reps = std::max(5, p_.repeats() + 2);
        for (auto& b : walk) {
          const int gap = gap_before(b.lba);
          const double ph1 = p_.phase(b.lba - 1, reps), ph2 = p_.phase(b.lba, reps);
          double sk = wrap_unit(ph2 - ph1 - (1 + gap) * step0_) / step0_;
          if (sk > spt0_ - 0.5) sk -= spt0_;
          b.skew = sk;
          skews.push_back(sk);
        }
        c = classify_boundaries(skews, std::max(1.0, 6.0 * noise_sectors));
      }
      tick(static_cast<double>(walk.size()) / 256.0);
      if (c.heads > 0 || static_cast<int>(walk.size()) < want) break;
      want *= 2;
    }
    for (std::size_t i = 0; i < walk.size(); ++i) verified_.insert((i + 1) * spt0_);
  }
  L.zones.clear();
  std::int32_t first_head = 0;
  if (c.heads > 0) {
    L.heads = c.heads;
    first_head = c.first_head;
    ZoneLayout z;
    z.spt = spt0_;
    z.track_skew = first_skew(c.track_value);
    z.cylinder_skew = first_skew(c.cylinder_value);
    L.zones.push_back(z);
  } else {
    // Equal (or invisible) skews: a cylinder switch is a seek, a head switch is not.
    if (boundaries_visible_)
      note(fmt::format("track and cylinder skews look alike ({}); telling cylinder switches "
                       "by their switch time",
                       c.why));
    std::vector<double> moves;
    std::set<std::size_t> remeasured;
    double first = -1;
    int heads = 0;
    const double min_gap = std::max(0.2, 6.0 * r_.period.jitter_ms);
    for (int k = 1; k <= 128; ++k) {
      const std::uint64_t b = static_cast<std::uint64_t>(k) * spt0_;
      if (b + spt0_ >= t_.sectors()) break;
      const std::uint64_t src = b - 2, dst = b + spt0_ / 2;
      if (first < 0) {
        first = move_time(src, dst, spt0_, 0.0);
        moves.push_back(first);
        continue;
      }
      // Same class as the first switch?
      const Millis base = tau(spt0_) + r_.dead_time_ms;
      const double ph = p_.phase(dst);
      bool same = p_.reach(src, dst, ph, base + first + min_gap / 2).hit;
      if (votes_ > 1) same = same && p_.reach(src, dst, ph, base + first + min_gap / 2).hit;
      moves.push_back(same ? first : move_time(src, dst, spt0_, first + min_gap));
      tick(static_cast<double>(k) / 128.0);
      c = classify_boundaries(moves, min_gap);
      if (c.heads == 0 && c.why.find("two classes") != std::string::npos) {
        // Two kinds of switch but no period: a threshold that a late host pushed up
        // looks like a seek. Delays only lengthen a threshold, so measure each long
        // switch once more and keep the shorter.
        for (std::size_t i = 1; i < moves.size(); ++i) {
          if (moves[i] <= first + min_gap || !remeasured.insert(i).second) continue;
          const std::uint64_t bi = (i + 1) * spt0_;
          moves[i] = std::min(moves[i], move_time(bi - 2, bi + spt0_ / 2, spt0_, first + min_gap));
        }
        c = classify_boundaries(moves, min_gap);
      }
      if (c.heads > 0 && static_cast<int>(moves.size()) >= 2 * c.heads + 1) {
        heads = c.heads;
        break;
      }
    }
    if (heads == 0) {
      heads = o_.seeds.heads.value_or(1);
      note(fmt::format("the track switches in the first {} tracks give no number of heads ({}); "
                       "taking {} head(s){}",
                       moves.size(), c.why, heads, o_.seeds.heads ? " from MODE SENSE page 04h" : ""));
    }
    L.heads = heads;
    if (c.heads == heads) first_head = c.first_head;
    ZoneLayout z;
    z.spt = spt0_;
    if (boundaries_visible_ && !walk.empty()) {
      // The walked boundaries, split by the heads the switch times found.
      std::vector<double> trk, cyl;
      for (std::size_t i = 0; i < walk.size(); ++i)
        ((i + 1 + static_cast<std::size_t>(first_head)) % static_cast<std::size_t>(heads) == 0 ? cyl : trk)
            .push_back(walk[i].skew);
      const double all = median(trk.empty() ? cyl : trk);
      z.track_skew = first_skew(trk.empty() ? all : median(trk));
      z.cylinder_skew = first_skew(cyl.empty() ? all : median(cyl));
    } else {
      z.track_skew = z.cylinder_skew = 0.0;
    }
    L.zones.push_back(z);
  }
  if (first_head > 0) {
    // An empty front: the tracks before LBA 0 on its cylinder hold no LBA. Whole
    // cylinders before that one would show in no timing: cylinders count from it.
    const std::uint64_t front = static_cast<std::uint64_t>(first_head) * spt0_;
    Layout shifted;
    shifted.heads = L.heads;
    shifted.zones = L.zones;
    shifted.sectors = L.sectors;
    shifted.add_hole(0, front, HoleKind::Front);
    for (const Hole& h : L.holes()) shifted.add_hole(h.pba + front, h.count, h.kind);
    L = shifted;
    std::set<std::uint64_t> verified;
    for (std::uint64_t p : verified_) verified.insert(p + front);
    verified_ = verified;
    note(fmt::format("LBA 0 is on head {} of its cylinder: the {} tracks before it hold no LBA (an empty "
                     "front; whole cylinders before it would not show, and cylinders are counted from "
                     "LBA 0's)",
                     first_head, first_head));
  }
  if (o_.seeds.heads && *o_.seeds.heads != L.heads)
    note(fmt::format("MODE SENSE page 04h says {} heads, timing finds {}", *o_.seeds.heads, L.heads));
  tick(1.0);
}

// Is cylinder first_cylinder + n still in zone z (same track size)? Also confirms
// (and, with slipped sectors, corrects) where its first track starts.
bool Extraction::in_zone(const ZoneLayout& z, std::int64_t n) {
  zones_check_time();
  ++spent_.tests;
  Layout& L = r_.layout;
  const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * z.spt;
  const std::uint64_t P = z.first_pba + static_cast<std::uint64_t>(n) * per_cyl;
  const std::uint64_t total = t_.sectors();
  const std::uint64_t y = L.lba_of_pba(P);
  if (y >= total) return false;
  if (y + 3 * z.spt >= total) return true;  // a last partial cylinder: nothing to compare
  const double step = 1.0 / z.spt;
  // Quick test: the track starts where predicted and its sectors step by 1/spt.
  double p1 = -1.0;
  const bool starts = aligned(P, &p1);
  if (p1 < 0) p1 = p_.phase(y);
  const std::uint64_t mid = L.lba_of_pba(P + z.spt / 2), end = L.lba_of_pba(P + z.spt - 1);
  const bool at_end = consistent(y, p1, end);
  if (starts && at_end) {
    verified_.insert(P);
    return true;
  }
  const bool at_mid = consistent(y, p1, mid);
  // Two answers at once are no single noisy read: a track of this zone's size that
  // starts elsewhere has slipped tracks or sectors before it (asked once more), and one
  // whose halves both step otherwise is another zone's (or spare space). That saves a
  // scan at each. On a noisy host each answer is already the earliest of several reads
  // (a late one cannot make it) and a "no" is read again against its anchor read again;
  // there a "no" asks a third sector too, a quarter of the track on. (A scan at each
  // "no" was half the tests of a cylinder and most of the zones step's time in real
  // time: 31 of 61 tests.)
  if (at_mid && at_end) {
    if (aligned(P)) {
      verified_.insert(P);
      return true;
    }
    localize(P);
    return true;
  }
  if (!at_mid && !at_end && (!p_.noisy() || !consistent(y, p1, L.lba_of_pba(P + z.spt / 4)))) return false;
  // Otherwise confirm with a scan, so that one noisy read cannot end a zone.
  ++spent_.scans;
  // (From a quarter track before y, to see the track start there. Past a zone's data that
  // quarter is the zone's last track, and the scan's phases step two ways across its end
  // and the spare tracks after it: real time once found "no regular sector structure"
  // there and stopped the zones step at zone 2. From y itself the scan sees what lies
  // past the end alone.)
  const TrackScan s = [&] {
    try {
      return scan_tracks(p_, y > z.spt / 4 ? y - z.spt / 4 : 0, step, 2);
    } catch (const TimingNoiseError&) {
      return scan_tracks(p_, y, step, 2);
    }
  }();
  if (s.spt != z.spt) return false;
  if (!s.exact) return true;
  // Same track size, but the track starts elsewhere: slipped sectors before it.
  localize(P);
  return true;
}

std::optional<TrackScan> Extraction::track_from(std::uint64_t y, std::uint32_t near_spt) {
  const std::uint64_t total = t_.sectors();
  const int reps = std::max(5, p_.repeats() + 2);
  const std::uint64_t k = near_spt / 2;
  if (y + 3 * near_spt >= total) return std::nullopt;
  const double ph0 = p_.phase(y, reps);
  const double turn = wrap_unit(p_.phase(y + k, reps) - ph0);
  if (!(turn > 0.2 && turn < 0.8)) return std::nullopt;
  const auto spt = static_cast<std::uint32_t>(std::lround(static_cast<double>(k) / turn));
  if (spt < 2 || spt == near_spt) return std::nullopt;
  // The track's last sector where that size puts it, and a skew at the next.
  const double last = p_.phase(y + spt - 1, reps);
  if (std::fabs(wrap_half(last - ph0 - (spt - 1.0) / spt)) >= 0.5 / spt) return std::nullopt;
  double skew = wrap_unit(p_.phase(y + spt, reps) - last - 1.0 / spt) * spt;
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

int Extraction::data_tracks(const ZoneLayout& z, std::int64_t c) {
  const Layout& L = r_.layout;
  const std::uint64_t total = t_.sectors();
  if (L.heads < 2 || !L.has_data(c, 0)) return L.heads;
  const std::uint64_t y0 = L.lba(c, 0, 0);
  if (L.lba(c, L.heads - 1, z.spt - 1) >= total) return L.heads;
  const double ph0 = p_.phase(y0, std::max(5, p_.repeats() + 2));
  // Both ends of the track must follow: a sector of the next zone matches one by chance.
  auto follows = [&](std::int32_t h) {
    return consistent(y0, ph0, L.lba(c, h, 0)) && consistent(y0, ph0, L.lba(c, h, z.spt - 1));
  };
  if (follows(L.heads - 1)) return L.heads;
  std::int32_t lo = 0, hi = L.heads - 1;
  while (hi - lo > 1) {
    const std::int32_t mid = lo + (hi - lo) / 2;
    (follows(mid) ? lo : hi) = mid;
  }
  return hi;
}

std::int64_t Extraction::crossing_distance(const ZoneLayout& z, std::int64_t c, std::uint64_t next,
                                           std::uint32_t next_spt) {
  ++spent_.crossings;
  const Timed timed(*this, spent_.crossing_ms);
  const Layout& L = r_.layout;
  std::int64_t first = z.first_cylinder;
  while (first < c && !L.has_data(first, 0)) ++first;
  const std::int64_t room = c - first;
  if (room < 3) return 1;
  const auto sector = [&](std::uint32_t spt) { return static_cast<std::uint32_t>(rand_below(spt / 2)); };
  // The seek measured at the nearest distance so far, and whether it is within two
  // cylinders of dist.
  struct SeekGuess {
    Millis ms = 0;
    bool near = false;
  };
  auto seek_guess = [&](std::int64_t dist) {
    const SeekPoint* best = nullptr;
    for (const auto& p : r_.seek_points)
      if (!best || std::llabs(p.distance - dist) < std::llabs(best->distance - dist)) best = &p;
    return best ? SeekGuess{best->ms, std::llabs(best->distance - dist) <= 2} : SeekGuess{};
  };
  // Each search starts near that seek: a bracket that misses costs a turn of widening
  // and a longer bisection.
  auto guess = [&](std::int64_t dist) { return std::max(0.0, seek_guess(dist).ms - 0.4); };
  // Every seek here is taken as the crossing is: outwards (towards the next zone), from
  // head 0 to head 0, the destination's phase read from the destination itself. Inside
  // the zone a seek of x cylinders ends on its last cylinder c; the crossing starts a
  // cylinders in from c and ends on the next zone's first track. A seek costs the same
  // in every zone, so the seeks measured at other zones' ends count here too (each
  // sample kept: a robust fit, not the shortest, takes the noise out).
  // (A head whose tracks hold data at both ends, head 0 where it does: a slipped track
  // holds none.)
  auto head_at = [&](std::int64_t cyl) -> std::optional<std::int32_t> {
    if (cyl < first) return std::nullopt;
    for (std::int32_t h = 0; h < L.heads; ++h)
      if (L.has_data(cyl, h) && L.has_data(c, h)) return h;
    return std::nullopt;
  };
  auto has_head0 = [&](std::int64_t cyl) { return head_at(cyl).has_value(); };
  auto inside = [&](std::int64_t x) {
    zones_check_time();
    const std::int32_t h = head_at(c - x).value_or(0);
    const Millis ms =
        move_time(L.lba(c - x, h, sector(z.spt)), L.lba(c, h, sector(z.spt)), z.spt, guess(x));
    r_.seek_points.push_back({x, ms});
    inside_seeks_.push_back({x, ms});
    return ms;
  };
  // The mean of the samples at x, measured when there is none.
  auto at = [&](std::int64_t x) {
    double sum = 0;
    int n = 0;
    for (const auto& p : inside_seeks_)
      if (p.distance == x) sum += p.ms, ++n;
    return n > 0 ? sum / n : inside(x);
  };
  std::vector<std::pair<std::int64_t, Millis>> crossings;  // (a, seek from c - a into the next zone)
  auto cross = [&](std::int64_t a) {
    zones_check_time();
    // (Its distance is what is sought: a guess from the spare cylinders just found.)
    const Millis ms = move_time(L.lba(c - a, head_at(c - a).value_or(0), sector(z.spt)), next + sector(next_spt), next_spt,
                                guess(a + 1 + last_spare_cylinders_));
    crossings.emplace_back(a, ms);
    return ms;
  };
  // Next door or not: seeks of one and two cylinders differ the most.
  const Millis next_door = cross(0);
  if (has_head0(c - 1) && has_head0(c - 2) && next_door < 0.5 * (at(1) + at(2))) return 1;

  // Spare cylinders between. Far out a cylinder is a few hundredths of a millisecond of
  // seek (0.03 ms at 35 cylinders on the C2247A), about the probes' noise, so no single
  // pair of seeks decides it: the seeks inside the zone around the crossing's length
  // are fitted (t = p + q sqrt(x), the shape of any seek curve past its settling steps,
  // locally), and crossings from several cylinders in are each read off that curve as a
  // number of cylinders; their median, less the offset, is the count.
  // A first count: from a cylinders in, clear of the short seeks' settling steps (the
  // C2247A's 6- and 8-cylinder seeks take the same time), by galloping and bisection.
  const std::int64_t a0 = std::min<std::int64_t>(10, room / 3);
  const std::int64_t dmax = room - a0;
  const Millis f_a0 = cross(a0);
  constexpr std::int64_t kFar0 = 12;
  std::int64_t d0 = 0;
  {
    // Seeks from earlier zones' ends already cover the range: read it off their curve.
    std::vector<SeekPoint> pts;
    for (const auto& p : inside_seeks_)
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
  // How one seek is measured here, by the pairs below and by the short crossings.
  // On a noisy host a request that reaches the drive late turns a hit into a miss, and
  // the bisection believes a miss after two in a row (misses_to_confirm at a few % of
  // completions late): each threshold then sits up to a few hundredths of a millisecond
  // high at random, a cylinder of seek here. Eight in a row halve the spread of a pair's
  // difference (xing-probe with an exponential 0.08 ms issue delay: 0.042 -> 0.019 ms).
  constexpr int kCrossingConfirm = 8;
  // A drive that reads ahead reads on after src to the end of its track and then
  // switches to the next: a read that arrives during that switch waits for it (up to
  // a head switch, 0.89 ms on the C2247A; the emulated drive does as DiskSim does), so
  // a destination whose threshold falls just after src's track end reads long: in
  // virtual time without noise a pair in four or five came out 2-10 cylinders off
  // (zone 3's crossing from 8 cylinders in read 0.33 ms long, as diskemu's trace
  // shows in real time). The completion phase of src's track end is read, and each
  // destination moved along its track (its phase with it) until the moment its read
  // is issued at the threshold is clear of that end.
  const bool ahead = defeat_ && r_.cache.read_ahead;
  auto track_end = [&](std::uint64_t src) {
    const Chs3 t = L.chs(L.pba_of_lba(src));
    const std::uint32_t n = L.spt_of_cylinder(t.cylinder);
    std::uint32_t last = n - 1;
    while (last > 0 && L.is_slipped(L.pba(t.cylinder, t.head, last))) --last;
    zones_check_time();
    // (A few tenths of a millisecond is close enough: three reads, not a phase's many.)
    const double ph = p_.phase(L.lba(t.cylinder, t.head, last), std::min(3, p_.repeats()), Op::Read);
    return wrap_unit(ph + static_cast<double>(n - 1 - last) / n);
  };
  // The sectors to move a destination by (0 when its threshold is clear of src's
  // track end): the read issued from a millisecond before that end to a head switch
  // and 0.3 ms after it (the end's completion phase lags the media by the bus and the
  // completion; the threshold is known to a few tenths) waits for the switch.
  const Millis T = p_.period();
  const Millis hs = head_switch_ > 0 ? head_switch_ : 1.0;
  // Moves m's destination (sector s0 of its track, phase ph) to the nearest sector
  // whose read is clear; lba_at(s) is sector s's LBA, none when it holds no data.
  auto clear_of = [&](Move& m, double& ph, std::uint32_t spt, std::int64_t dist, double end, std::uint32_t s0,
                      auto&& lba_at) {
    const Millis slack = tau(spt) + r_.dead_time_ms + seek_guess(dist).ms;
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
  };
  // The destinations' tracks, sector by sector (clear_of's lba_at): head h of cylinder c
  // (a slipped sector holds no data), and the next zone's first track (taken to hold no
  // slipped sector).
  auto end_track = [&](std::int32_t h) {
    return [&, h](std::uint32_t k) -> std::optional<std::uint64_t> {
      if (L.is_slipped(L.pba(c, h, k))) return std::nullopt;
      return L.lba(c, h, k);
    };
  };
  auto next_track = [&](std::uint32_t k) -> std::optional<std::uint64_t> { return next + k; };
  auto threshold = [&](const Move& m, double ph, std::uint32_t spt, std::int64_t dist) {
    zones_check_time();
    // (Near lengths already measured, a cylinder or two away: the bisection starts
    // 0.25 ms either side, not 0.7 below and 0.6 above.)
    const SeekGuess g = seek_guess(dist);
    const Millis base = tau(spt) + r_.dead_time_ms;
    const Millis lo = g.near ? g.ms - 0.25 : g.ms - 0.7, hi = g.near ? g.ms + 0.25 : g.ms + 0.6;
    return p_.reach_threshold(m.src, m.dst, ph, base + std::max(0.0, lo), base + hi, o_.resolution_ms, votes_,
                              Op::Read, kCrossingConfirm) -
           base;
  };
  // Few spare cylinders: the crossings fall among the short seeks' settling steps, where
  // a cylinder more costs 0.1-0.4 ms on the C2247A (five to ten times what a pair of
  // probes scatters by in real time, against a hundredth of a millisecond at 30
  // cylinders) but not in step with distance (its 6- and 8-cylinder seeks take the same
  // time, its 7-cylinder seek less). No curve reads them; a table does. The seeks from
  // 0, 1 and 2 cylinders in are each set against the seeks inside the zone of every
  // length they could be, and the count is the one under which all three match, when it
  // matches clearly better than any other; else the pairs below decide.
  constexpr std::int64_t kShortMax = 10;
  if (d0 <= kShortMax && room >= d0 + 8) {
    // One seek measured on its own: its destination's phase read twice back to back
    // (their mean), and moved clear of src's track end, as the pairs below do.
    auto measure = [&](std::uint64_t src, std::uint64_t dst, std::uint32_t src_spt, std::uint32_t dst_spt,
                       std::uint32_t s0, std::int64_t dist, auto&& lba_at) {
      Move m = oriented({src, dst});
      const bool forward = m.src == src;
      const double end = ahead && forward ? track_end(m.src) : 0.0;
      zones_check_time();
      const double p1 = p_.phase(m.dst, 0, Op::Read);
      const double p2 = p_.phase(m.dst, 0, Op::Read);
      double ph = mid_phase(p1, p2);
      if (ahead && forward) clear_of(m, ph, dst_spt, dist, end, s0, lba_at);
      return threshold(m, ph, forward ? dst_spt : src_spt, dist);
    };
    std::int64_t lo = std::max<std::int64_t>(1, d0 - 2), hi = d0 + 2;  // the counts tried
    // Each seek's samples: the seek inside the zone of x cylinders, the crossing from a
    // cylinders in.
    std::map<std::int64_t, std::vector<Millis>> in, out;
    auto cross_at = [&](std::int64_t a) {
      const std::uint32_t s = sector(next_spt);
      out[a].push_back(measure(L.lba(c - a, 0, sector(z.spt)), next + s, z.spt, next_spt, s, a + d0, next_track));
    };
    auto inside_at = [&](std::int64_t x) {
      const std::int32_t h = *head_at(c - x);
      const std::uint32_t s_in = sector(z.spt);
      const Millis ms = measure(L.lba(c - x, h, sector(z.spt)), L.lba(c, h, s_in), z.spt, z.spt, s_in, x, end_track(h));
      in[x].push_back(ms);
      r_.seek_points.push_back({x, ms});
      inside_seeks_.push_back({x, ms});
    };
    // A seek's time: its one sample, or the mean of the two that agree best (a probe
    // disturbed by the host reads a tenth of a millisecond or more off).
    auto value = [](const std::vector<Millis>& v) {
      if (v.size() == 1) return v[0];
      std::vector<Millis> w = v;
      std::sort(w.begin(), w.end());
      std::size_t i = 0;
      for (std::size_t j = 1; j + 1 < w.size(); ++j)
        if (w[j + 1] - w[j] < w[i + 1] - w[i]) i = j;
      return 0.5 * (w[i] + w[i + 1]);
    };
    auto disagree = [](const std::vector<Millis>& v) {
      return v.size() == 2 && std::fabs(v[0] - v[1]) > 0.05;
    };
    std::vector<std::pair<double, std::int64_t>> fits;
    // The noise of a crossing less a seek inside when each is the mean of m samples: a
    // pair of probes scatters by 0.035 ms in real time (a disturbed one by 0.1 or more).
    auto noise2 = [&] {
      std::size_t m = 99;
      for (const auto& [a, v] : out) m = std::min(m, v.size());
      for (const auto& [x, v] : in) m = std::min(m, v.size());
      return 0.035 * 0.035 / static_cast<double>(m);
    };
    auto sure = [&] {
      // Sure: the best within that noise (or a little more), the best a hundred times
      // likelier than the next under it (or the best's own misfit, when larger), and
      // not at the edge of the counts tried (one past it could fit better still). A
      // flat table (zone 1's 10 on the C2247A, its next count 0.04 ms RMS worse) needs
      // more samples than a steep one.
      if (fits.size() < 3 || fits[0].first > 0.08) return false;
      const double s2 = std::max(noise2(), fits[0].first * fits[0].first);
      const double n = static_cast<double>(out.size());
      const double gap = n * (fits[1].first * fits[1].first - fits[0].first * fits[0].first);
      return gap / (2.0 * s2) >= std::log(100.0) && (fits[0].second > lo || lo == 1) && fits[0].second < hi;
    };
    bool steep = false;
    auto at_edge = [&] { return (fits[0].second == lo && lo > 1) || fits[0].second == hi; };
    for (int round = 0; round < 4; ++round) {
      if (round == 0) {
        // Where seeks a cylinder apart differ by less than about twice the noise, a
        // table reads the count no better than the curve: three seeks inside and one
        // crossing tell, before the rest is measured (on the C2247A, zone 1's 10).
        if (!(L.has_data(c, 0) && has_head0(c - d0 - 1))) break;
        cross_at(0);
        for (std::int64_t x = std::max<std::int64_t>(1, d0 - 1); x <= d0 + 1; ++x)
          if (has_head0(c - x)) inside_at(x);
        auto is_steep = [&] {
          bool st = in.size() == 3;
          for (auto it = in.begin(); st && std::next(it) != in.end(); ++it)
            st = std::fabs(value(std::next(it)->second) - value(it->second)) >= 0.07;
          return st;
        };
        // (Flat by one reading: read once more, a disturbed probe reads 0.1 ms off; real
        // time once read zone 4's 3-, 4- and 5-cylinder seeks, 0.17 and 0.29 ms apart, as
        // flat.)
        steep = is_steep();
        if (!steep && in.size() == 3) {
          for (const auto& [x, v] : std::map(in)) inside_at(x);
          steep = is_steep();
        }
        if (!steep) break;
        for (std::int64_t a = 0; a <= 2; ++a)
          if (!out.count(a) && L.has_data(c - a, 0) && L.has_data(c, 0)) cross_at(a);
      } else if (at_edge()) {
        // The best count at the edge of those tried: the first count was off (busy
        // virtual time: 8 for 5, a single seek 0.1 ms long). Two more counts each side.
        lo = std::max<std::int64_t>(1, lo - 2);
        hi += 2;
      } else {
        // A misfit beyond the noise (some probe was disturbed) or a next best too near
        // (the table is flat there, and its noise decides): every seek is measured
        // again, and a third time where its two samples disagree.
        for (const auto& [a, v] : std::map(out)) cross_at(a);
        for (const auto& [x, v] : std::map(in)) inside_at(x);
        for (const auto& [a, v] : std::map(out))
          if (disagree(v)) cross_at(a);
        for (const auto& [x, v] : std::map(in))
          if (disagree(v)) inside_at(x);
      }
      for (const auto& [a, v] : out)
        for (std::int64_t x = a + lo; x <= a + hi; ++x)
          if (!in.count(x) && has_head0(c - x)) inside_at(x);
      // Each count's misfit: the RMS of the crossings less the seeks inside as long.
      fits.clear();
      for (std::int64_t k = lo; k <= hi; ++k) {
        double sq = 0;
        int n = 0;
        for (const auto& [a, v] : out)
          if (in.count(a + k)) sq += std::pow(value(v) - value(in[a + k]), 2.0), ++n;
        if (n == static_cast<int>(out.size()) && n >= 2) fits.emplace_back(std::sqrt(sq / n), k);
      }
      std::sort(fits.begin(), fits.end());
      if (sure() || fits.size() < 3 || elapsed() > kCloseCallsEnd * o_.budget_ms) break;
    }
    if (sure()) {
      const std::int64_t k = fits[0].second;
      std::vector<std::int64_t> alone;  // each crossing's nearest seek inside, less its offset
      for (const auto& [a, v] : out) {
        std::int64_t best = 0;
        for (const auto& [x, t] : in)
          if (best == 0 || std::fabs(value(t) - value(v)) < std::fabs(value(in[best]) - value(v))) best = x;
        alone.push_back(best - a);
      }
      note(fmt::format("cylinder {}: {} seeks into the next zone from 0 to 2 cylinders in, set against {} seeks "
                       "inside the zone of {} to {} cylinders, match them best {} cylinders on ({:.3f} ms RMS; "
                       "{} cylinders on {:.3f} ms) (each crossing alone: {})",
                       c, out.size(), in.size(), in.begin()->first, in.rbegin()->first, k, fits[0].first,
                       fits[1].second, fits[1].first, fmt::join(alone, ", ")));
      for (const auto& [a, v] : out)
        for (const Millis ms : v) r_.seek_points.push_back({a + k, ms});
      last_spare_cylinders_ = k - 1;
      return k;
    }
    if (!steep)
      note(fmt::format("cylinder {}: the seeks inside the zone near {} cylinders differ by less than 0.07 ms a "
                       "cylinder: the pairs decide",
                       c, d0));
    else
      note(fmt::format("cylinder {}: the short seeks into the next zone match no count clearly (best {} cylinders "
                       "on at {:.3f} ms RMS, then {} at {:.3f} ms): the pairs decide",
                       c, fits.empty() ? 0 : fits[0].second, fits.empty() ? 0.0 : fits[0].first,
                       fits.size() < 2 ? 0 : fits[1].second, fits.size() < 2 ? 0.0 : fits[1].first));
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
  constexpr std::int64_t kFar = 12;
  double est = static_cast<double>(d0), spread = 0;
  std::int64_t d = d0;
  std::vector<std::int64_t> offsets;
  bool sure = false;
  struct Paired {
    std::int64_t a, x;  // the crossing from a cylinders in; the seek inside, x cylinders long
    Millis ms, ms_in;
  };
  std::vector<Paired> paired;
  std::vector<double> read;  // each pair's count, as the last round read them
  // Past the zones step's share of the budget: two offsets, not four, and one more round
  // for a close call (their two counts apart), not three.
  const bool short_of_time = zones_over_share();
  if (short_of_time) ++crossings_cut_;
  for (int round = 0; round < 4 && !sure; ++round) {
    // (Two cylinders clear of kFar: a count one or two too many must not bring the
    // crossings down among the short seeks' settling steps.)
    const std::int64_t a_lo = std::min(room, std::max<std::int64_t>(0, kFar + 2 - d));
    offsets.clear();
    // (Each round a cylinder further in than the last: a cylinder whose crossing reads
    // wrong is not measured twice.)
    for (std::int64_t k = 0; k < (short_of_time ? 2 : 4); ++k) {
      const std::int64_t a = std::min(room, a_lo + 3 * k + round % 3);
      if (k == 0 || a + d + 4 <= room) offsets.push_back(a);
    }
    // Each crossing with a seek inside the zone of about its length (the curve's height
    // there). A reach threshold moves with the host's delay when its destination's phase
    // was read (the probes after aim at that phase), so the crossing's phase is read
    // between two reads of the inside seek's, which aims at their mean: to first order
    // both aim with the host's delay of one moment, whatever its drift.
    for (std::int64_t a : offsets) {
      // The crossing ends on head 0 (the next zone's first track) and must start there
      // too: from another head (a slipped track on head 0) it costs a head switch more,
      // 0.3 ms on the C2247A, which read as five cylinders.
      for (std::int64_t t : {a, a + 1, a - 1})
        if (t >= 0 && t <= room && c - t >= first && L.has_data(c - t, 0) && L.has_data(c, 0)) {
          a = t;
          break;
        }
      if (!(c - a >= first && L.has_data(c - a, 0) && L.has_data(c, 0))) continue;
      std::int64_t x = std::clamp<std::int64_t>(a + d, 1, room);
      while (x < room && !has_head0(c - x)) ++x;
      if (!has_head0(c - x)) continue;
      const std::int32_t h = head_at(c - x).value_or(0);
      const std::uint64_t in_src = L.lba(c - x, h, sector(z.spt));
      const std::uint32_t in_s = sector(z.spt);
      const std::uint64_t cr_src = L.lba(c - a, head_at(c - a).value_or(0), sector(z.spt));
      const std::uint32_t cr_s = sector(next_spt);
      Move in = oriented({in_src, L.lba(c, h, in_s)});
      Move cr = oriented({cr_src, next + cr_s});
      const bool in_ahead = ahead && in.src == in_src, cr_ahead = ahead && cr.src == cr_src;
      const double in_end = in_ahead ? track_end(in.src) : 0.0;
      const double cr_end = cr_ahead ? track_end(cr.src) : 0.0;
      zones_check_time();
      // (Each read twice, in1 cr1 cr2 in2, so both means fall at one moment: a threshold
      // is off by as much as its destination's phase, and one phase read on a late host
      // is off by a few hundredths of a millisecond, a cylinder here.)
      const double in1 = p_.phase(in.dst, 0, Op::Read);
      const double cr1 = p_.phase(cr.dst, 0, Op::Read);
      const double cr2 = p_.phase(cr.dst, 0, Op::Read);
      const double in2 = p_.phase(in.dst, 0, Op::Read);
      double ph_in = mid_phase(in1, in2);
      double ph_cr = mid_phase(cr1, cr2);
      if (in_ahead) clear_of(in, ph_in, z.spt, x, in_end, in_s, end_track(h));
      if (cr_ahead) clear_of(cr, ph_cr, next_spt, a + d, cr_end, cr_s, next_track);
      const Millis ms_in = threshold(in, ph_in, z.spt, x);
      // (Measured the other way round, its destination is this zone's track.)
      const Millis ms_cr = threshold(cr, ph_cr, cr.src == cr_src ? next_spt : z.spt, a + d);
      r_.seek_points.push_back({x, ms_in});
      inside_seeks_.push_back({x, ms_in});
      crossings.emplace_back(a, ms_cr);
      paired.push_back({a, x, ms_cr, ms_in});
    }
    if (paired.empty()) break;
    // The curve near the crossings' lengths (its shape), and each crossing read off it
    // raised or lowered to the seek measured with it.
    std::int64_t x_lo = room, x_hi = 0;
    for (const auto& b : paired) x_lo = std::min(x_lo, b.x), x_hi = std::max(x_hi, b.x);
    std::vector<SeekPoint> pts;
    for (const auto& p : inside_seeks_)
      if (p.distance >= std::min(x_lo, std::max(kFar, x_lo - 2)) && p.distance <= x_hi + 2) pts.push_back(p);
    const auto fit = fit_sqrt(pts);
    if (!fit || !(fit->q > 0)) {
      note(fmt::format("cylinder {}: the seeks inside the zone do not grow with distance near {} cylinders; "
                       "its spare cylinders are counted from one seek",
                       c, offsets.front() + d));
      break;
    }
    auto f = [&](std::int64_t x) { return fit->p + fit->q * std::sqrt(static_cast<double>(x)); };
    std::vector<double> ds;
    for (const auto& b : paired) {
      const double lift = b.ms_in - f(b.x);
      ds.push_back(std::pow(std::max(0.0, (b.ms - lift - fit->p) / fit->q), 2.0) - static_cast<double>(b.a));
    }
    read = ds;
    est = median(ds);
    // (A first round's few pairs by their plain deviation too: a robust one of four hides
    // one pair off, and real time read zone 5's 8 as 9 from 7.62, 8.82, 9.08, 9.02,
    // "+- 0.10"; with their plain deviation, +- 0.33, a second round is taken.)
    double sigma = ds.size() > 1 ? robust_sigma(ds) : 0.0;
    if (round == 0 && ds.size() > 1) sigma = std::max(sigma, sample_sigma(ds));
    spread = ds.size() > 1 ? sigma / std::sqrt(static_cast<double>(ds.size())) : 1.0;
    // Two counts more than a cylinder apart are one of them wrong (seen: a crossing 0.3 ms
    // long in virtual time too): their mean is no count to measure the next round at.
    const bool split = ds.size() == 2 && std::fabs(ds[0] - ds[1]) > 1.0;
    const std::int64_t nd =
        split ? d : std::clamp<std::int64_t>(std::llround(est), 1, std::max<std::int64_t>(1, room));
    const bool moved = std::llabs(nd - d) > 2;  // paired with seeks of another length
    d = nd;
    // A crossing that at the new count is shorter than kFar lies among the short seeks'
    // settling steps, off the curve: its pair is not read again (seen: a first count of 9
    // for zone 2's 5 put a crossing at 10 cylinders, read as 7.8).
    if (moved)
      std::erase_if(paired, [&](const Paired& b) { return b.a + d < kFar; });
    // Sure when the estimate sits near a whole count, clearly so for its spread.
    sure = !moved && std::fabs(est - static_cast<double>(d)) < 0.3 &&
           std::fabs(est - static_cast<double>(d)) + 2.0 * spread < 0.5;
    // A close call keeps its rounds while the run is short of kCloseCallsEnd of its
    // budget, past the zones step's share or not: every crossing counted wrong in
    // virtual time with --noise busy was one (`may be off by one` below), and the steps
    // after the zones step need less than the rest.
    if (!sure && !moved && round >= 1 && zones_over_share() && elapsed() > kCloseCallsEnd * o_.budget_ms) {
      if (!short_of_time) ++crossings_cut_;
      break;
    }
  }
  if (!sure)
    note(fmt::format("cylinder {}: the seeks into the next zone put it {:.2f} cylinders on (+- {:.2f}): its "
                     "spare cylinders may be off by one",
                     c, est, spread));
  if (d >= room)
    note(fmt::format("the seek from cylinder {} into the next zone is as long as any inside its zone: its spare "
                     "tracks are counted as {} cylinders at most",
                     c, room));
  note(fmt::format("cylinder {}: {} seeks into the next zone from {} to {} cylinders in, {} of them each with a "
                   "seek inside the zone about as long, read off {} seeks inside the zone, put it {:.2f} cylinders "
                   "on (+- {:.2f}): {} cylinders on (the pairs read {:.2f})",
                   c, crossings.size(), offsets.empty() ? 0 : offsets.front(), offsets.empty() ? 0 : offsets.back(),
                   paired.size(), inside_seeks_.size(), est, spread, d, fmt::join(read, ", ")));
  for (const auto& [a, ms] : crossings) r_.seek_points.push_back({a + d, ms});
  last_spare_cylinders_ = d - 1;
  return d;
}

void Extraction::close_zones(std::size_t zi, const std::string& why, std::int64_t confirmed) {
  Layout& L = r_.layout;
  const std::uint64_t total = t_.sectors();
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
  zones_unsearched_ = seen;
  measured_end_ = z.first_cylinder + confirmed + 1;
  note(fmt::format("zones: {}; zone {} ({} sectors per track from cylinder {}) was confirmed over {} cylinders, to LBA "
                   "{} ({:.0f} % of the device), and is taken to run to the end of the device: the zones, spare "
                   "tracks and slipped sectors past LBA {} are not measured (the step's {:.0f} s: {} tests of a "
                   "cylinder, {} of them with a track scan; {} slip searches, {:.0f} s; {} zone crossings, {:.0f} s)",
                   why, zi, z.spt, z.first_cylinder, confirmed + 1, seen,
                   100.0 * static_cast<double>(seen) / static_cast<double>(total), seen,
                   (elapsed() - zones_start_) / 1000.0, spent_.tests, spent_.scans, spent_.searches,
                   spent_.search_ms / 1000.0, spent_.crossings, spent_.crossing_ms / 1000.0));
}

void Extraction::find_zones() {
  progress_.step("zones", elapsed(), o_.budget_ms);
  zones_start_ = elapsed();
  in_zones_ = true;
  Layout& L = r_.layout;
  const std::uint64_t total = t_.sectors();
  zones_unsearched_ = total;
  std::size_t zi = 0;
  // A zone whose search runs out of time, or cannot see the structure it looks for, ends
  // the search there: the layout as it was at the zone's start, the zone to the end.
  Layout at_zone_start = L;
  std::set<std::uint64_t> verified_at_start = verified_;
  // (Within a zone, what each test of a cylinder found stands: the layout after the last
  // one that returned, slipped tracks and sectors included.)
  std::int64_t confirmed = 0;  // cylinders of the zone searched past its first, all in it
  // A zone whose end proved inconsistent is searched again from that end, twice at most.
  std::int64_t resume = 0;
  int retries = 0;
  auto stop = [&](const std::string& why) {
    L = at_zone_start;
    verified_ = verified_at_start;
    close_zones(zi, why, confirmed);
  };
  auto not_timed = [&](const std::string& what) {
    stop(fmt::format("zone {} could not be timed: {} (completion jitter {:.3f} ms, {:.0f} % of completions late)",
                     zi, what, p_.period_estimate().jitter_ms, 100 * p_.late_fraction()));
  };
  while (true) {
   at_zone_start = L;
   verified_at_start = verified_;
   confirmed = 0;
   try {
    if (elapsed() > kZonesEnd * o_.budget_ms) throw ZonesOutOfTime{};
    ZoneLayout& z = L.zones[zi];
    const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * z.spt;
    const std::uint64_t first_lba = L.zone_first_lba(z);
    const auto avail = static_cast<std::int64_t>((total - first_lba) / per_cyl + 2);
    // Gallop, then bisect: in_zone(lo) holds, in_zone(hi) does not.
    std::int64_t lo = 0, hi = avail;
    auto tested = [&](std::int64_t n, bool in) {
      at_zone_start = L;
      verified_at_start = verified_;
      if (in) confirmed = std::max(confirmed, n);
      return in;
    };
    // (Searched again: from the cylinder read as past the end, tested once more.)
    for (std::int64_t n = resume > 0 && resume < avail ? resume : 1; n < avail; n *= 2) {
      if (tested(n, in_zone(z, n))) {
        lo = n;
      } else {
        hi = n;
        break;
      }
      tick(std::min(1.0, static_cast<double>(first_lba + static_cast<std::uint64_t>(n) * per_cyl) /
                             static_cast<double>(total)));
    }
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (tested(mid, in_zone(L.zones[zi], mid)) ? lo : hi) = mid;
    }
    ZoneLayout& zz = L.zones[zi];
    zz.cylinders = hi;
    const std::int64_t last_c = zz.first_cylinder + hi - 1;
    // The zone's data may end before its last cylinder does: spare tracks follow.
    const int k = data_tracks(zz, last_c);
    const std::uint64_t end_pba = L.pba(last_c, 0, 0) + static_cast<std::uint64_t>(k) * zz.spt;
    const std::uint64_t next = L.lba_of_pba(end_pba);
    tick(std::min(1.0, static_cast<double>(next) / static_cast<double>(total)));
    if (next >= total) {
      if (next > total)
        note(fmt::format("the last cylinder is partial: the device ends {} sectors into it, or "
                         "slipped sectors at its very end",
                         total - L.lba_of_pba(end_pba - per_cyl)));
      break;
    }
    // The last track of this zone starts where predicted...
    const std::uint64_t last_track = end_pba - zz.spt;
    if (!verified_.count(last_track) && !aligned(last_track)) localize(last_track);
    verified_.insert(last_track);
    // ...and ends where predicted: LBA next - 1 is its last sector, unless slipped
    // sectors in it (found now) end it earlier.
    {
      const std::uint64_t y_lt = L.lba_of_pba(last_track);
      const double ph_lt = p_.phase(y_lt, std::max(5, p_.repeats() + 2));
      localize_track(last_track, [&] { return consistent(y_lt, ph_lt, L.lba_of_pba(end_pba) - 1); });
    }
    const std::uint64_t start_lba = L.lba_of_pba(end_pba);
    // The next zone's track size from a scan that starts on the old zone's last sector
    // (scanning further back would mix the two zones' sector steps).
    const std::uint32_t old_spt = zz.spt;
    // (The old zone's sector step as the hint: zones next to each other differ little.)
    // When the data ends inside a cylinder, start_lba is a track start for certain: the
    // track size then follows from two phases and is checked at the track's end.
    std::optional<TrackScan> quick;
    if (k < L.heads) quick = track_from(start_lba, old_spt);
    const TrackScan s = quick ? *quick : scan_tracks(p_, start_lba - 1, 1.0 / old_spt, 2);
    if (s.spt == old_spt)
      throw ZoneEndInconsistent{
          hi, fmt::format("zone search is inconsistent at LBA {}: cylinder {} does not continue zone {} but has "
                          "its track size ({}); an irregular layout",
                          start_lba, zz.first_cylinder + zz.cylinders, zi, old_spt)};
    std::optional<std::size_t> at;
    for (std::size_t i = 0; i < s.boundaries.size(); ++i)
      if (s.boundaries[i] == start_lba) at = i;
    if (s.exact && !at)
      note(fmt::format("no track boundary at LBA {} where zone {} should start", start_lba, zi + 1));
    // Spare tracks at the zone's end hold no LBA: the next LBA lies a seek away.
    zones_progress_ = static_cast<double>(start_lba) / static_cast<double>(total);
    const std::int64_t d = crossing_distance(zz, last_c, start_lba, s.spt);
    const std::uint64_t spare = static_cast<std::uint64_t>(L.heads - k) +
                                static_cast<std::uint64_t>(d - 1) * static_cast<std::uint64_t>(L.heads);
    if (spare > 0) {
      L.add_hole(end_pba, spare * zz.spt, HoleKind::SpareTracks);
      zz.cylinders += d - 1;
      note(fmt::format("zone {}: its data ends on head {} of cylinder {}; {} spare tracks follow (the next "
                       "LBA is {} cylinders on, by its seek time)",
                       zi, k - 1, last_c, spare, d));
    }
    ZoneLayout nz;
    nz.first_cylinder = zz.first_cylinder + zz.cylinders;
    nz.first_pba = zz.first_pba + static_cast<std::uint64_t>(zz.cylinders) * per_cyl;
    nz.spt = s.spt;
    // First skews from the scan (refined in the skews step): the boundary at the zone
    // start skews like a cylinder switch, the others inside the first cylinder like
    // track switches.
    // After spare tracks the zone's first track is placed on its own, not by a switch:
    // its cylinder skew is measured at its second cylinder instead.
    if (spare > 0 && start_lba + 2 * static_cast<std::uint64_t>(L.heads) * nz.spt < total)
      nz.cylinder_skew = first_skew(measure_skew(p_, start_lba + static_cast<std::uint64_t>(L.heads) * nz.spt,
                                           1.0 / nz.spt, 3, 0));
    else if (at)
      nz.cylinder_skew = first_skew(s.skews[*at] - gap_before(s.boundaries[*at]));
    std::vector<double> ts;
    for (std::size_t i = 0; i < s.boundaries.size(); ++i)
      if (!at || i > *at) ts.push_back(s.skews[i] - gap_before(s.boundaries[i]));
    // On a noisy host, one late read among the scan's one or two track switches made
    // this skew 1-5 sectors wrong, and every slip search in the zone then failed (the
    // error adds up once per track crossed): the median of more switches of the zone's
    // first cylinder instead.
    if (L.heads > 1 && (p_.noisy() || p_.repeats() > 1))
      for (std::int32_t h = 2; h <= std::min<std::int32_t>(L.heads - 1, 4); ++h) {
        const std::uint64_t y = start_lba + static_cast<std::uint64_t>(h) * nz.spt;
        if (y + nz.spt >= total) break;
        ts.push_back(measure_skew(p_, y, 1.0 / nz.spt, 1, 0));
      }
    if (!ts.empty() && L.heads > 1) nz.track_skew = first_skew(median(ts));
    verified_.insert(nz.first_pba);
    L.zones.push_back(nz);
    ++zi;
    resume = 0;
    retries = 0;
    if (L.zones.size() > 512) throw std::runtime_error("more than 512 zones: not a zoned disk layout");
   } catch (const ZoneEndInconsistent& e) {
    // Real time once stopped at zone 0's cylinder 64 this way: the gallop's test there
    // read "no" on a noisy host, and the scan past the end found zone 0's track size.
    if (retries < 2) {
      ++retries;
      note(fmt::format("{}: zone {} searched again from cylinder {}", e.what, zi,
                       L.zones[zi].first_cylinder + e.cylinders));
      L = at_zone_start;
      verified_ = verified_at_start;
      resume = e.cylinders;
      continue;
    }
    not_timed(e.what);
    break;
   } catch (const ZonesOutOfTime&) {
    stop(fmt::format("out of its time ({:.0f} s of the {:.0f} s budget spent; the steps after it need the rest)",
                     elapsed() / 1000.0, o_.budget_ms / 1000.0));
    break;
   } catch (const TimingNoiseError& e) {
    not_timed(e.what());
    break;
   }
  }
  in_zones_ = false;
  if (zones_unsearched_ >= total)
    note(fmt::format("zones: all {} measured in {:.0f} s ({} tests of a cylinder, {} of them with a track scan; {} "
                     "slip searches, {:.0f} s; {} zone crossings, {:.0f} s)",
                     L.zones.size(), (elapsed() - zones_start_) / 1000.0, spent_.tests, spent_.scans,
                     spent_.searches, spent_.search_ms / 1000.0, spent_.crossings, spent_.crossing_ms / 1000.0));
  if (crossings_cut_ > 0)
    note(fmt::format("zones: past its share of the budget ({:.0f} s), {} zone crossings were counted from fewer "
                     "seeks (three crossings, not four, or no second round for a close call); a longer --budget "
                     "measures more",
                     0.25 * o_.budget_ms / 1000.0, crossings_cut_));
  tick(1.0);
}

void Extraction::measure_skews() {
  progress_.step("skews", elapsed(), o_.budget_ms);
  Layout& L = r_.layout;
  const Millis skews_left = left();
  for (std::size_t zi = 0; zi < L.zones.size(); ++zi) {
    ZoneLayout& z = L.zones[zi];
    const double step = 1.0 / z.spt;
    std::vector<double> track, cyl;
    auto circ = [&](const std::vector<double>& v) {
      std::vector<double> a;
      for (double x : v) a.push_back(x * step);
      double m = circular_median(a) / step;
      if (m > z.spt - 0.5) m -= z.spt;
      return m;
    };
    // Standard error of a circular median, in sectors.
    auto sem = [&](const std::vector<double>& v) {
      if (v.size() < 3) return 1e9;
      const double m = circ(v);
      std::vector<double> d;
      for (double x : v) d.push_back(wrap_half((x - m) * step) / step);
      return 1.253 * robust_sigma(d) / std::sqrt(static_cast<double>(v.size()));
    };
    // Sample until the standard error is under a tenth of a sector (at least 5
    // boundaries of each kind, at most 25, less when the budget is short).
    const Millis zone_start = elapsed();
    // (A tenth of the budget, or half of what is left when the zones step took more.)
    const Millis share = std::min(0.1 * o_.budget_ms, 0.5 * std::max(0.0, skews_left)) /
                         static_cast<double>(L.zones.size());
    const std::int64_t sampled = sampled_cylinders(z);
    for (int i = 0; i < 25 && sampled >= 2; ++i) {
      const bool done = i >= 5 && sem(cyl) < 0.1 && (L.heads == 1 || sem(track) < 0.1);
      if (done || (i >= 5 && elapsed() - zone_start > share)) break;
      const auto c = z.first_cylinder + static_cast<std::int64_t>(rand_below(static_cast<std::uint64_t>(sampled - 1)));
      const std::uint64_t yc = L.lba(c + 1, 0, 0);
      if (yc + z.spt >= t_.sectors()) continue;
      if (L.has_data(c, L.heads - 1) && L.has_data(c + 1, 0))  // not next to spare or slipped tracks
        cyl.push_back(measure_skew(p_, yc, step, 1, gap_before(yc)));
      if (L.heads > 1) {
        const auto h = static_cast<std::int32_t>(1 + rand_below(static_cast<std::uint64_t>(L.heads - 1)));
        const std::uint64_t yt = L.lba(c, h, 0);
        if (L.has_data(c, h - 1) && L.has_data(c, h)) track.push_back(measure_skew(p_, yt, step, 1, gap_before(yt)));
      }
    }
    // Whole sectors unless the measurements say otherwise.
    auto snap_to = [&](double x, double e) {
      const double r = std::round(x) + 0.0;
      return std::fabs(x - r) <= std::max(kSnapSectors, 3.0 * e) ? r : std::round(x * 100.0) / 100.0;
    };
    const double cyl_raw = cyl.empty() ? 0.0 : circ(cyl);
    const double trk_raw = track.empty() ? cyl_raw : circ(track);
    z.cylinder_skew = snap_to(cyl_raw, sem(cyl));
    z.track_skew = track.empty() ? *z.cylinder_skew : snap_to(trk_raw, sem(track));
    // Long baseline: the cumulative skew model must place the start of the zone's last
    // cylinder where it is; a skew error of e sectors is e times the tracks crossed.
    // (From the first cylinder whose first track holds data to the last whose last does.)
    std::int64_t near = z.first_cylinder, far = z.first_cylinder + sampled - 2;
    while (near < far && !L.has_data(near, 0)) ++near;
    while (far > near && (!L.has_data(far, L.heads - 1) || L.lba(far, L.heads - 1, 1) + 2 >= t_.sectors())) --far;
    if (far - near >= 3) {
      const auto far_head = static_cast<std::int32_t>(L.heads - 1);
      const std::uint64_t y0 = L.lba(near, 0, 1), y1 = L.lba(far, far_head, 1);
      const int reps = std::max(5, p_.repeats() + 2);
      const double measured = p_.phase(y1, reps) - p_.phase(y0, reps);
      auto predicted = [&](double ts, double cs) {
        const Chs3 a = L.chs(L.pba_of_lba(y0)), b = L.chs(L.pba_of_lba(y1));
        const double tracks_cyl = static_cast<double>(far - near);
        return (tracks_cyl * ((L.heads - 1) * ts + cs) + far_head * ts + b.sector - a.sector) * step;
      };
      const double err_snap = wrap_half(measured - predicted(*z.track_skew, *z.cylinder_skew)) / step;
      if (std::fabs(err_snap) > 0.5) {
        const double err_raw = wrap_half(measured - predicted(trk_raw, cyl_raw)) / step;
        if (std::fabs(err_raw) < std::fabs(err_snap)) {
          z.track_skew = std::round(trk_raw * 100.0) / 100.0;
          z.cylinder_skew = std::round(cyl_raw * 100.0) / 100.0;
        }
        note(fmt::format("zone {}: the cumulative skew model misplaces its last cylinder by {:.2f} "
                         "sectors; skews kept as {:.2f} / {:.2f}",
                         zi, std::min(std::fabs(err_snap), std::fabs(err_raw)), *z.track_skew,
                         *z.cylinder_skew));
      }
    }
    if (zi > 0 && gap_before(L.zone_first_lba(z)) == 0) {
      // Crossing into a zone skews like a cylinder switch of the new zone (after spare
      // tracks there is no switch to compare).
      const std::uint64_t y = L.zone_first_lba(z);
      const double cross = measure_skew(p_, y, step, 1, gap_before(y));
      if (std::fabs(wrap_half((cross - *z.cylinder_skew) / z.spt)) * z.spt > 1.0)
        note(fmt::format("zone {}: skew at its first track is {:.2f} sectors, its cylinder skew "
                         "is {:.2f}; the profile assumes they are equal",
                         zi, cross, *z.cylinder_skew));
    }
    tick(static_cast<double>(zi + 1) / static_cast<double>(L.zones.size()));
  }
  if (o_.seeds.track_skew && L.zones.front().track_skew &&
      std::fabs(*o_.seeds.track_skew - *L.zones.front().track_skew) > 1.0)
    note(fmt::format("MODE SENSE page 03h says track skew {}, timing finds {:.2f}", *o_.seeds.track_skew,
                     *L.zones.front().track_skew));
  if (o_.seeds.cylinder_skew && L.zones.front().cylinder_skew &&
      std::fabs(*o_.seeds.cylinder_skew - *L.zones.front().cylinder_skew) > 1.0)
    note(fmt::format("MODE SENSE page 03h says cylinder skew {}, timing finds {:.2f}",
                     *o_.seeds.cylinder_skew, *L.zones.front().cylinder_skew));
}

void Extraction::measure_switches() {
  progress_.step("switch", elapsed(), o_.budget_ms);
  Layout& L = r_.layout;
  // Pairs of reach thresholds at one place: half a track ahead on the same track (dead
  // time) and on the next head of the same cylinder (dead time + head switch). The
  // difference of a pair is one head-switch sample. Sample until the medians' standard
  // errors are small against the 0.1 ms this is good for, within a share of the budget.
  std::vector<double> dead{r_.dead_time_ms};
  std::vector<double> hs;
  const Millis start = elapsed();
  const Millis share = std::min(0.15 * o_.budget_ms, 0.5 * std::max(0.0, left()));
  auto sem = [](const std::vector<double>& v) {
    return v.size() < 3 ? 1e9 : 1.253 * robust_sigma(v) / std::sqrt(static_cast<double>(v.size()));
  };
  for (int i = 0; i < 15; ++i) {
    const bool enough = i >= 3 && sem(dead) < 0.02 && (L.heads == 1 || sem(hs) < 0.02);
    if (enough || (i >= 3 && elapsed() - start > share)) break;
    const ZoneLayout& z = L.zones[static_cast<std::size_t>(i) % L.zones.size()];
    const auto c = z.first_cylinder +
                   static_cast<std::int64_t>(rand_below(static_cast<std::uint64_t>(std::max<std::int64_t>(1, sampled_cylinders(z) - 1))));
    const auto h = static_cast<std::int32_t>(rand_below(static_cast<std::uint64_t>(std::max(1, L.heads - 1))));
    if (!L.has_data(c, h) || (L.heads > 1 && !L.has_data(c, h + 1))) continue;  // spare or slipped
    const std::uint64_t src = L.lba(c, h, 1);
    const Millis same = reach(L.lba(c, h, 1), L.lba(c, h, z.spt / 2 + 1), 0.0, p_.period()) - tau(z.spt);
    dead.push_back(same);
    if (L.heads > 1) {
      const Millis base = tau(z.spt) + same;
      const Millis next = reach(src, L.lba(c, h + 1, z.spt / 2), base - 0.3, base + head_switch_guess_ + 1.0);
      hs.push_back(next - base);
      head_switch_guess_ = median(hs);
    }
    tick(std::min(1.0, (elapsed() - start) / share));
  }
  r_.dead_time_ms = median(dead);
  head_switch_ = hs.empty() ? 0.0 : std::max(0.0, median(hs));
}

void Extraction::measure_seeks() {
  progress_.step("seek", elapsed(), o_.budget_ms);
  const Layout& L = r_.layout;
  // Cylinders up to the last whole one that holds data (spares after it show nothing).
  // Below where the zones step stopped, when it stopped early (cylinders past it are
  // numbered by a guess), if that is a third of the stroke or more: a curve fitted over
  // less and extrapolated came out further off than seeks over the guessed cylinders
  // (imported C2247A, virtual time: 7.4 ms RMS against 1.7 with 257 of 2050 cylinders;
  // 0.05-0.9 ms against 1.0-1.7 with 700-900).
  std::int64_t cyls = std::min(L.cylinders(), L.chs(L.pba_of_lba(t_.sectors() - 1)).cylinder);
  if (measured_end_ < cyls && 3 * measured_end_ >= cyls) {
    cyls = measured_end_;
    note(fmt::format("seek curve measured over the first {} cylinders, where the layout was measured; longer seeks "
                     "are the fit's extrapolation",
                     cyls));
  }
  const std::int64_t maxd = cyls - 1;
  if (maxd < 1) {
    note("a single cylinder: no seek curve");
    return;
  }
  // Every distance up to 16 (settle plateaus), then x1.25 to the full stroke; the
  // order puts a coarse spread first so that a short budget still covers the range.
  std::vector<std::int64_t> all;
  for (std::int64_t d = 1; d <= std::min<std::int64_t>(16, maxd); ++d) all.push_back(d);
  for (double d = 20; d < maxd; d *= 1.25) all.push_back(static_cast<std::int64_t>(std::lround(d)));
  if (all.back() != maxd) all.push_back(maxd);
  // Breadth-first bisection of the (roughly logarithmic) list: any prefix spreads
  // over the whole range, the shortest and the full stroke first.
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

  // Keep time for validation: a tenth of the budget, at most 30 s.
  const Millis reserve = std::min(0.1 * o_.budget_ms, 30'000.0) + (o_.writable ? 5'000.0 : 0.0);
  const Millis seek_start = elapsed();
  const Millis seek_budget = std::max(0.0, left() - reserve);
  std::map<std::int64_t, double> known;  // distance -> first measured seek, for brackets
  auto guess = [&](std::int64_t d) {
    if (known.empty()) return 0.0;
    auto hi = known.lower_bound(d);
    if (hi == known.begin()) return hi->second;
    auto lo = std::prev(hi);
    if (hi == known.end()) return lo->second;
    const double f = static_cast<double>(d - lo->first) / static_cast<double>(hi->first - lo->first);
    return lo->second + f * (hi->second - lo->second);
  };
  auto measure = [&](std::int64_t d, bool outward) {
    std::int64_t c0 = 0;
    std::int32_t h = 0;
    for (int draw = 0; draw < 64; ++draw) {  // both ends on tracks that hold data
      c0 = static_cast<std::int64_t>(rand_below(static_cast<std::uint64_t>(cyls - d)));
      h = static_cast<std::int32_t>(rand_below(static_cast<std::uint64_t>(L.heads)));
      if (L.has_data(c0, h) && L.has_data(c0 + d, h) &&
          L.lba(c0 + d, h, L.spt_of_cylinder(c0 + d) - 1) < t_.sectors())
        break;
    }
    const std::int64_t src_c = outward ? c0 : c0 + d, dst_c = outward ? c0 + d : c0;
    const std::uint32_t src_spt = L.spt_of_cylinder(src_c), dst_spt = L.spt_of_cylinder(dst_c);
    // Sectors well inside their tracks: undiscovered slips at the end of the disk then
    // cannot push a target past the last LBA.
    const std::uint64_t src = L.lba(src_c, h, static_cast<std::uint32_t>(rand_below(src_spt / 2)));
    const std::uint64_t dst = L.lba(dst_c, h, static_cast<std::uint32_t>(rand_below(dst_spt / 2)));
    const Millis ms = move_time(src, dst, dst_spt, std::max(0.0, guess(d) - 0.3));
    r_.seek_points.push_back({d, ms});
    known.emplace(d, ms);
    return ms;
  };
  std::size_t done = 0;
  const std::size_t min_points = std::min<std::size_t>(9, order.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Millis used = elapsed() - seek_start;
      if (done >= min_points && used > seek_budget) break;
      measure(order[i], ((i + static_cast<std::size_t>(pass)) % 2) == 0);
      ++done;
      tick(std::min(1.0, (elapsed() - seek_start) / std::max(1.0, seek_budget)));
    }
  }
  if (known.size() < all.size())
    note(fmt::format("seek curve sampled at {} of {} distances to fit the budget", known.size(), all.size()));
  r_.seek = fit_seek_curve(r_.seek_points, o_.seek_form);

  // A curve with a jump between its short and long pieces (JW's HP 97560 has one):
  // bisect between the measured distances around the breakpoint to place it exactly.
  const SeekCurveSpec& f = r_.seek.spec;
  if (f.form == SeekCurveSpec::Form::TwoPiece || f.form == SeekCurveSpec::Form::ThreePiece) {
    std::int64_t b = f.boundary;
    auto next = known.upper_bound(b);
    if (next != known.end()) {
      std::int64_t n = next->first;
      const auto shrt = [&](std::int64_t d) { return f.short_a + f.short_b * std::sqrt(static_cast<double>(d)); };
      const auto lng = [&](std::int64_t d) { return f.long_a + f.long_b * static_cast<double>(d); };
      const double noise = std::max(0.05, 4.0 * r_.period.jitter_ms);
      int steps = 0;
      while (n - b > 1 && steps++ < 16 && std::fabs(shrt((b + n) / 2) - lng((b + n) / 2)) > noise) {
        const std::int64_t m = (b + n) / 2;
        const double ms = measure(m, steps % 2 == 0);
        (std::fabs(ms - shrt(m)) <= std::fabs(ms - lng(m)) ? b : n) = m;
      }
      if (steps > 0) r_.seek = fit_seek_curve(r_.seek_points, o_.seek_form);
    }
  }
  tick(1.0);
}

void Extraction::measure_writes() {
  progress_.step("writes", elapsed(), o_.budget_ms);
  if (!o_.writable) return;
  const auto [first, last] = *o_.writable;
  const Layout& L = r_.layout;
  // A whole track inside the writable range.
  std::optional<std::uint64_t> track;
  std::uint32_t zspt = 0;
  for (const auto& z : L.zones) {
    for (std::int64_t c = z.first_cylinder; c <= z.last_cylinder() && !track; ++c) {
      const std::uint64_t lo = L.lba(c, 0, 0);
      if (lo > last) break;
      for (std::int32_t h = 0; h < L.heads && !track; ++h) {
        const std::uint64_t a = L.lba(c, h, 0), b = L.lba(c, h, z.spt - 1);
        if (a >= first && b <= last && b - a + 1 == z.spt) {
          track = a;
          zspt = z.spt;
        }
      }
      // Jump to the cylinder that holds `first` instead of walking every one.
      if (!track && lo < first) {
        const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * z.spt;
        const auto skip = static_cast<std::int64_t>((first - lo) / per_cyl);
        if (skip > 1) c += skip - 1;
      }
    }
    if (track) break;
  }
  if (!track) {
    note("the writable range holds no whole track: write timing not measured; writes are "
         "given the read overheads");
    return;
  }
  const std::uint64_t x = *track + 1, y = x + zspt / 2;
  check_write_behind(t_, x, y, r_.cache);
  note(r_.cache.describe_write_behind());
  const int n = std::max(3, p_.repeats());
  const double pr = p_.phase(y, n, Op::Read), pw = p_.phase(y, n, Op::Write);
  write_completion_ = wrap_half(pw - pr) * p_.period();
  if (write_completion_ < 0) {
    note(fmt::format("writes complete {:.3f} ms before reads of the same sector; completion "
                     "offset for writes set to 0",
                     -write_completion_));
    write_completion_ = 0;
  }
  const double ph = p_.phase(y, 0, Op::Write);
  const Millis s = p_.reach_threshold(x, y, ph, 0.0, p_.period(), o_.resolution_ms, votes_, Op::Write);
  write_overhead_ = std::max(0.0, s - tau(zspt) - r_.host_floor_ms - write_completion_);
  tick(1.0);
}

void Extraction::build_profile() {
  const Layout& L = r_.layout;
  DiskProfile& P = r_.profile;
  P.name = o_.name;
  P.sector_bytes = t_.sector_bytes();
  P.heads = L.heads;
  P.rotation_ms = p_.period();
  const ZoneLayout& z0 = L.zones.front();
  P.track_skew_sectors = z0.track_skew.value_or(0.0);
  P.cylinder_skew_sectors = z0.cylinder_skew.value_or(0.0);
  for (const auto& z : L.zones) {
    ZoneSpec s;
    s.first_cylinder = z.first_cylinder;
    s.last_cylinder = z.last_cylinder();
    s.sectors_per_track = z.spt;
    if (z.track_skew && std::fabs(*z.track_skew - P.track_skew_sectors) > 1e-9) s.track_skew_sectors = z.track_skew;
    if (z.cylinder_skew && std::fabs(*z.cylinder_skew - P.cylinder_skew_sectors) > 1e-9)
      s.cylinder_skew_sectors = z.cylinder_skew;
    P.zones.push_back(s);
  }
  P.head_switch_ms = head_switch_;
  // Slipped sectors as defects; an empty front, slipped tracks and spare tracks in the
  // layout of a drive that spares tracks at each zone's end (DiskSim's scheme 1), where
  // a slipped track uses one of its zone's spares.
  for (const Hole& h : L.holes()) {
    if (h.kind == HoleKind::Sector) {
      for (std::uint64_t p = h.pba; p < h.pba + h.count; ++p) {
        const Chs3 c = L.chs(p);
        P.defects.push_back(Defect{c.cylinder, c.head, c.sector});
      }
      continue;
    }
    P.layout.sparing = Sparing::TracksPerZone;
    const auto zi = static_cast<std::size_t>(&L.zone_of_pba(h.pba) - L.zones.data());
    ZoneSpec& s = P.zones[zi];
    const std::uint64_t track = (h.pba - L.zones[zi].first_pba) / L.zones[zi].spt;
    switch (h.kind) {
      case HoleKind::Front: s.empty_front += h.count; break;
      case HoleKind::Track: s.slips.push_back(track); ++s.spares; break;
      case HoleKind::SpareTracks: s.spares += h.count / L.zones[zi].spt; break;
      case HoleKind::Sector: break;
    }
  }
  const Millis read_overhead = std::max(0.0, r_.dead_time_ms - r_.host_floor_ms);
  P.overhead_ms = PerOp{read_overhead, write_overhead_ >= 0 ? write_overhead_ : read_overhead, read_overhead};
  P.completion_ms = PerOp{0.0, write_completion_, 0.0};
  if (r_.seek.table.empty()) {
    P.seek.form = SeekCurveSpec::Form::Table;
    P.seek.points = {{1, 0.0}};
  } else {
    P.seek = r_.seek.spec;
  }
  // A zone after spare tracks is placed on the platter on its own, not by a switch from
  // the zone before (DiskSim's first block offset): its first track's angle is measured,
  // relative to the chained angles and the reference sector.
  {
    const DiskModel chained(P);
    const double ref = chained.end_angle(o_.reference_lba, 1);
    for (std::size_t zi = 1; zi < L.zones.size(); ++zi) {
      const ZoneLayout& z = L.zones[zi];
      const std::uint64_t y = L.zone_first_lba(z);
      if (gap_before(y) == 0 || y >= t_.sectors()) continue;
      const double off = wrap_half(p_.phase(y, std::max(5, p_.repeats() + 2)) - (chained.end_angle(y, 1) - ref));
      const double first = wrap_unit(chained.track_angle(z.first_cylinder, 0) + off) * z.spt;
      P.zones[zi].first_block_sectors = snap(first) >= z.spt ? 0.0 : snap(first);
    }
  }
  // Platter angle at time 0 of the target's clock: the reference sector's transfer
  // ends when its completion is seen (completion offsets are folded into overheads).
  DiskModel m(P);
  const Millis t0 = p_.next_time_at(0.0, t_.now_ms());
  P.rotation_phase = wrap_unit(m.end_angle(o_.reference_lba, 1) - t0 / p_.period());
  if (P.rotation_phase >= 1.0) P.rotation_phase = 0.0;
}

void Extraction::validate() {
  progress_.step("validate", elapsed(), o_.budget_ms);
  DiskModel m(r_.profile);
  const std::uint64_t total = std::min<std::uint64_t>(t_.sectors(), m.lbas());
  const Millis tol = std::max(2.0 * p_.period() / r_.layout.zones.front().spt, 0.02 * p_.period());
  std::vector<double> err;
  const Millis start = elapsed();
  // What is left of the budget (at least 30 pairs, a second or two, when none is).
  const Millis budget = std::max(left(), 0.0);
  for (int i = 0; i < o_.max_validation_pairs; ++i) {
    // (Not a pair that would end past the budget, at the pace so far.)
    if (i >= 30 && (elapsed() - start) * (i + 1) / i > budget) break;
    const std::uint64_t a = rand_below(total), b = rand_below(total);
    const ProbeResult ra = p_.read(a);
    (void)ra;
    const ProbeResult rb = t_.read(b, 1);
    if (rb.disturbed && p_.flags_trusted()) continue;
    const Location la = m.locate(a, 1, Op::Read);
    HeadState from;
    // The platter anchored on the frame (refined as the run went on).
    from.spin = Spin::anchored(p_.next_time_at(0.0, rb.issue_ms), m.end_angle(o_.reference_lba, 1),
                               p_.period());
    from.time_ms = rb.issue_ms + r_.host_floor_ms;
    from.cylinder = la.cylinder;
    from.head = la.head;
    const Cost c = m.service(from, Op::Read, b * t_.sector_bytes(), t_.sector_bytes());
    err.push_back(rb.complete_ms - c.end.time_ms);
    tick(std::min(1.0, (elapsed() - start) / budget));
  }
  Validation& v = r_.validation;
  v.pairs = static_cast<int>(err.size());
  v.tolerance_ms = tol;
  if (err.empty()) return;
  std::vector<double> abs;
  int ok = 0;
  for (double e : err) {
    abs.push_back(std::fabs(e));
    ok += std::fabs(e) <= tol;
  }
  std::sort(abs.begin(), abs.end());
  v.within_tolerance = static_cast<double>(ok) / static_cast<double>(err.size());
  v.median_abs_error_ms = median(abs);
  v.p95_abs_error_ms = abs[static_cast<std::size_t>(0.95 * static_cast<double>(abs.size() - 1))];
  if (v.within_tolerance < 0.9)
    note(fmt::format("only {:.0f} % of {} validation pairs were predicted within {:.3f} ms: the "
                     "completions here are hard to predict (irregular layout, caching, or noise); this is "
                     "the prediction on this host, not a verdict on the geometry, which `disksched "
                     "extract check` compares{}",
                     100 * v.within_tolerance, v.pairs, tol,
                     p_.noisy() ? fmt::format("; {:.0f} % of completions are seen late on this host, and a "
                                              "late completion counts as an error here{}",
                                              100 * p_.late_fraction(),
                                              o_.timing_advice.empty() ? "" : "; to time it better: " + o_.timing_advice)
                                : ""));
  tick(1.0);
}

ExtractResult Extraction::run() {
  r_.cache = cache_;
  if (defeat_) r_.notes.push_back(cache_.describe());
  if (t_.sectors() < 1024) throw std::runtime_error("the device is too small to hold a disk geometry");
  try {
    measure_period();
    first_tracks();
    find_heads();
    find_zones();
    measure_skews();
    measure_switches();
    measure_seeks();
    measure_writes();
  } catch (const TimingNoiseError& e) {
    progress_.finish();
    std::string msg = e.what();
    if (p_.period() > 0)
      msg += fmt::format(" (timing noise here: completion jitter {:.3f} ms, {:.0f} % of completions late)",
                         p_.period_estimate().jitter_ms, 100 * p_.late_fraction());
    if (!o_.timing_advice.empty()) msg += "; to time it: " + o_.timing_advice;
    throw TimingNoiseError(msg);
  }
  build_profile();
  validate();
  progress_.finish();

  // Cross-check against Translate Address where the drive does it.
  if (o_.seeds.translate) {
    int agree = 0, asked = 0;
    const Layout& L = r_.layout;
    for (int i = 0; i < 16; ++i) {
      const auto c = static_cast<std::int64_t>(rand_below(static_cast<std::uint64_t>(L.cylinders())));
      const auto h = static_cast<std::int32_t>(rand_below(static_cast<std::uint64_t>(L.heads)));
      const std::uint64_t lba = L.lba(c, h, L.spt_of_cylinder(c) / 2);
      if (lba >= t_.sectors()) continue;
      auto got = o_.seeds.translate(lba);
      if (!got) break;
      ++asked;
      agree += got->first == c && got->second == h;
    }
    if (asked > 0)
      note(fmt::format("Translate Address agrees on cylinder and head for {} of {} sampled LBAs", agree,
                       asked));
  }

  if (o_.seeds.defect_list) {
    std::size_t listed = 0;
    for (const auto& d : r_.profile.defects)
      listed += std::find(o_.seeds.defect_list->begin(), o_.seeds.defect_list->end(),
                          std::make_tuple(d.cylinder, d.head, d.sector)) != o_.seeds.defect_list->end();
    note(fmt::format("READ DEFECT DATA lists {} defective sectors; timing found {} slipped sectors, {} of "
                     "them in the list (a drive's numbering of sectors may differ from the LBA order)",
                     o_.seeds.defect_list->size(), r_.profile.defects.size(), listed));
  }

  if (defeat_) {
    r_.cache_evictions = defeat_->evictions();
    note(fmt::format("drive cache defeated: {} reads of other places pushed probed sectors out of the "
                     "buffer; {} reach pairs measured the other way round, out of read-ahead's way",
                     r_.cache_evictions, turned_round_));
  }
  r_.elapsed_ms = elapsed();
  r_.probes = p_.probes();
  r_.period = p_.period_estimate();

  DiskProfile& P = r_.profile;
  nlohmann::json src;
  src["tool"] = "disksched extract";
  src["target"] = t_.describe();
  {
    const std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    src["date"] = buf;
  }
  src["budget_s"] = o_.budget_ms / 1000.0;
  src["elapsed_s"] = r_.elapsed_ms / 1000.0;
  // Where the zones step stopped when it did not search the whole device (its note says why).
  if (zones_unsearched_ < t_.sectors()) src["zones_unmeasured_from_lba"] = zones_unsearched_;
  src["probes"] = r_.probes;
  src["period"] = {{"ms", r_.period.period_ms},
                   {"jitter_ms", r_.period.jitter_ms},
                   {"reference_reads", r_.period.reads},
                   {"rejected", r_.period.rejected},
                   {"baseline_s", r_.period.baseline_ms / 1000.0}};
  src["host_floor_ms"] = r_.host_floor_ms;
  src["dead_time_ms"] = r_.dead_time_ms;
  src["gauge"] =
      "completion_ms.read is 0 by convention: from outside the drive only the sum of command "
      "overhead and completion offset is observable; it is folded into overhead_ms (the host "
      "round trip measured with a null target is subtracted)";
  nlohmann::json seek;
  seek["form"] = r_.seek.form;
  seek["rms_ms"] = r_.seek.rms_ms;
  seek["two_piece_rms_ms"] = r_.seek.two_piece_rms_ms;
  seek["three_piece_rms_ms"] = r_.seek.three_piece_rms_ms;
  nlohmann::json table = nlohmann::json::array();
  for (const auto& pt : r_.seek.table) table.push_back({pt.distance, pt.ms});
  seek["table"] = table;
  nlohmann::json rej = nlohmann::json::array();
  for (const auto& pt : r_.seek.rejected) rej.push_back({pt.distance, pt.ms});
  seek["rejected"] = rej;
  src["seek"] = seek;
  src["validation"] = {{"pairs", r_.validation.pairs},
                       {"tolerance_ms", r_.validation.tolerance_ms},
                       {"within_tolerance", r_.validation.within_tolerance},
                       {"median_abs_error_ms", r_.validation.median_abs_error_ms},
                       {"p95_abs_error_ms", r_.validation.p95_abs_error_ms}};
  src["rotation_phase_clock"] = "the extracting host's clock for this target";
  src["cache"] = {{"read_cache", r_.cache.read_cache},
                  {"read_ahead", r_.cache.read_ahead},
                  {"read_ahead_sectors_at_least", r_.cache.read_ahead_sectors},
                  {"evicting_reads", r_.cache.evicting_reads},
                  {"reread_ms", r_.cache.reread_ms},
                  {"behind_ms", r_.cache.behind_ms},
                  {"ahead_ms", r_.cache.ahead_ms},
                  {"write_behind", r_.cache.write_behind ? nlohmann::json(*r_.cache.write_behind)
                                                         : nlohmann::json(nullptr)},
                  {"buffered_write_ms", r_.cache.buffered_write_ms},
                  {"fua_write_ms", r_.cache.fua_write_ms},
                  {"defeated", defeat_ != nullptr},
                  {"evictions", r_.cache_evictions}};
  src["notes"] = r_.notes;
  P.source = src;
  return r_;
}

}  // namespace

ExtractResult extract_geometry(ProbeTarget& target, const ExtractOptions& options) {
  if (!(options.budget_ms > 0)) throw std::invalid_argument("the extraction budget must be > 0");
  // As long as back-to-back reads of the reference take a revolution each, no buffer
  // answers them, and the probes go straight to the target (unchanged).
  std::string answered;
  const Millis started = target.now_ms();
  try {
    Extraction plain(target, options, CacheFindings{}, nullptr, started);
    return plain.run();
  } catch (const CacheAnswersError& e) {
    if (!options.defeat_cache) throw;
    answered = e.what();
  }
  // They did not: find what the buffer does, then probe around it.
  const CacheFindings cache = check_cache(target);
  if (options.progress) std::fprintf(options.progress, "extract: %s\n", cache.describe().c_str());
  if (!cache.any()) throw std::runtime_error(answered);
  CacheDefeat defeat(target, cache);
  Extraction e(defeat, options, cache, &defeat, started);
  return e.run();
}

}  // namespace disksched::extract
