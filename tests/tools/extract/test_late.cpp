// Extraction against the imported HP C2247A (cache on) when a share of completions is
// seen late by a heavy-tailed amount, as `nbdkit diskemu` on a shared host shows in
// real time (README: completion jitter 0.086 ms, 12 % of reference completions late).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"
#include "predictor/profile.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/virtual_target.hpp"
#include "tests/tools/extract/c2247a_extraction.hpp"

using namespace disksched;
using namespace disksched::extract;
using namespace disksched::extract::testing;

namespace {

// The real-time run's noise (README: completion jitter 0.086 ms, 12 % of reference
// completions late, on an idle machine), as `--noise late` plays it: the period step
// measures 0.07-0.09 ms of jitter and 11-14 % late from it.
HostNoise late_tail(std::uint64_t seed) { return *noise_preset("late", seed); }

// For exploring (hidden: `test_extract_late "[late-explore]"`): the noise from the
// environment, LJ (exponential jitter, ms), LR (late rate), LM (late mean, ms), IJ
// (exponential issue jitter, ms), SEED,
// BUDGET (s); progress on stderr.
HostNoise from_env() {
  HostNoise n = late_tail(std::getenv("SEED") ? std::strtoull(std::getenv("SEED"), nullptr, 10) : 1);
  if (const char* v = std::getenv("LJ")) n.completion_jitter_ms = std::atof(v);
  if (const char* v = std::getenv("LR")) n.late_rate = std::atof(v);
  if (const char* v = std::getenv("LM")) n.late_mean_ms = std::atof(v);
  if (const char* v = std::getenv("IJ")) n.issue_jitter_ms = std::atof(v);
  if (const char* v = std::getenv("WA")) n.wander_ms = std::atof(v);
  if (const char* v = std::getenv("WP")) n.wander_period_ms = std::atof(v);
  return n;
}

bool says(const ExtractResult& r, const std::string& what) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

}  // namespace

// Before: seeds 1-3 stopped in the zones step after 914-1548 s of drive time ("irregular
// layout: the sectors of track ... do not follow any pattern of slipped sectors"), seed 4
// finished after 1486 s; none near the 240 s asked for.
TEST_CASE("under the real-time run's late completions a 240 s budget ends near 240 s and says what it left",
          "[extract][late]") {
  const std::uint64_t seed = GENERATE(1, 2);
  INFO("noise seed " << seed);
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), late_tail(seed));
  const ExtractResult r = run_extraction(t, 240'000);
  const DiskProfile truth = c2247a_imported(false);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print_extraction("c2247a imported, late completions", r, c);
  CHECK(r.period.late_fraction > 0.1);  // the noise is what real time showed
  CHECK(r.period.jitter_ms > 0.06);
  CHECK(r.elapsed_ms <= 1.1 * 240'000);
  CHECK(says(r, "are not measured"));
  // What it could measure, it measured right.
  CHECK(std::fabs(r.period.period_ms / t.true_rotation_ms() - 1.0) < 0.001);
  CHECK(r.profile.heads == truth.heads);
  REQUIRE(!r.profile.zones.empty());
  CHECK(r.profile.zones[0].sectors_per_track == truth.zones[0].sectors_per_track);
  // Sampled where the layout was measured, the skews and the head switch are right too.
  CHECK(c.max_track_skew_error < 1.0);
  CHECK(c.max_cylinder_skew_error < 1.0);
  CHECK(std::fabs(c.head_switch_error) < 0.1);
}

// Requests that reach the drive late as well (`--noise busy`) make every reach
// threshold come out a little high at random, and a zone crossing's seek is read against
// a seek inside the zone to a few hundredths of a millisecond (a cylinder). Before (two
// misses in a row believed): each crossing's pairs scattered by 1-2 cylinders, as in real
// time, and seeds 1, 3 and 4 put zone 5's spare cylinders one off (9 or 7 for 8); the
// crossings now take eight misses in a row as a miss.
TEST_CASE("with requests reaching the drive late every zone crossing is counted right",
          "[extract][late]") {
  const std::uint64_t seed = GENERATE(1, 2, 3, 4);
  INFO("noise seed " << seed);
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), *noise_preset("busy", seed));
  const ExtractResult r = run_extraction(t, 1'800'000);
  const DiskProfile truth = c2247a_imported(false);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print_extraction("c2247a imported, late completions and requests", r, c);
  CHECK(!says(r, "are not measured"));
  REQUIRE(r.profile.zones.size() == truth.zones.size());
  CHECK(c.zones_equal);
  CHECK(c.mapping_differ == 0);
  CHECK(c.defects_missing == 0);
}

// A zone with few spare cylinders is crossed by seeks among the short seeks' settling
// steps, where a cylinder more costs 0.1-0.4 ms on the C2247A but not in step with
// distance: read off a curve through longer seeks and paired with a seek inside the
// zone, each crossing scattered by half a cylinder under `busy` (a cylinder in real
// time, where 3 of 4 runs counted one zone's spares one off, each time a close call).
// Now the crossings from 0, 1 and 2 cylinders in are matched against a table of the
// seeks inside the zone. Before: no crossing was read that way, and over these seeds
// 25 crossings were close calls ("may be off by one"); now 81 are read off the table
// (all right) and 8 are close calls.
TEST_CASE("with requests reaching the drive late few spare cylinders are read off a table of short seeks",
          "[extract][late]") {
  const DiskModel truth(c2247a_imported(false));
  // The true distance from cylinder c (a zone's last with data, counted from LBA 0's as
  // the extraction counts) to the next LBA.
  auto true_distance = [&](std::int64_t c) {
    c += truth.lba_to_chs(0).cylinder;
    std::uint64_t lo = 0, hi = truth.lbas();  // the first LBA past cylinder c
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (truth.lba_to_chs(mid).cylinder <= c ? lo = mid + 1 : hi = mid);
    }
    return truth.lba_to_chs(lo).cylinder - c;
  };
  int by_table = 0, close_calls = 0, runs = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), *noise_preset("busy", seed));
    const ExtractResult r = run_extraction(t, 900'000);
    ++runs;
    for (const std::string& n : r.notes) {
      if (n.find("may be off by one") != std::string::npos) ++close_calls;
      const auto at = n.find(", match them best ");
      if (at == std::string::npos) continue;
      const std::int64_t c = std::atoll(n.c_str() + n.find("cylinder ") + 9);
      const std::int64_t k = std::atoll(n.c_str() + at + 18);
      INFO("seed " << seed << ": " << n);
      CHECK(k == true_distance(c));
      ++by_table;
    }
  }
  std::printf("%d crossings read off the table of short seeks, %d close calls, in %d runs\n", by_table,
              close_calls, runs);
  // Zones 1-6 (4-10 spare cylinders) in each run, zone 1's 10 where the C2247A's seeks a
  // cylinder apart differ by 0.05-0.1 ms, and more samples are needed; zone 0's 25 lies
  // beyond.
  CHECK(by_table >= 3 * 5 * runs / 4);
  CHECK(close_calls <= runs);
}

// A test of a cylinder read "no" on a noisy host ends a zone's search early, and the
// scan past that end finds the zone's own track size. Before: the zones step stopped
// there ("zone search is inconsistent"; real time once at zone 0's cylinder 64,
// `extract --virtual --noise busy --seed 28` at zone 1's cylinder 590, seed 24 at zone
// 5's 1257, the zones after it not measured). Now the zone is searched again from that
// cylinder. Which seeds meet it changes with every change to the order of the probes
// (143, then 173, 61 and 18 on three branches merged together), so the run takes the
// first of a list of seeds that met it on one of them that does; if none does, the case
// is not exercised and fails.
TEST_CASE("a zone end the scan past it contradicts is searched again", "[extract][late]") {
  const DiskProfile truth = c2247a_imported(false);
  for (const std::uint64_t seed : {18, 28, 61, 74, 106, 127, 150, 162, 167, 173, 184, 214, 222}) {
    VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), *noise_preset("busy", seed));
    ExtractOptions o;
    o.budget_ms = 900'000;
    o.seed = seed;
    o.name = "test";
    const ExtractResult r = extract_geometry(t, o);
    if (!says(r, "searched again from cylinder")) continue;
    const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
    print_extraction(("c2247a imported, busy seed " + std::to_string(seed)).c_str(), r, c);
    CHECK(!says(r, "could not be timed"));
    REQUIRE(r.profile.zones.size() == truth.zones.size());
    CHECK(c.zones_equal);
    return;
  }
  FAIL("no seed of the list met a zone end contradicted by the scan past it");
}

// The real-time run at BUDGET=900 (completion jitter 0.015 ms, 1 % late) stopped at
// zone 1's first slipped track: "the sectors of track ... do not follow any pattern of
// slipped sectors". Read in real time, diskemu's phases there follow the model (the
// slipped track, the cache and the device are right: `[.slip-probe]`), but a phase read
// seconds apart from another disagrees with it by up to 0.6-0.8 sectors where two read
// back to back agree within 0.25: the host's timing wanders. A slipped track's test
// against its anchor (several tracks back, read before the bisection) came out 0.77 and
// 0.84 sectors off and was refused. The same noise with a completion delay wandering by
// 0.04 ms over 3 s. Before: seed 1 spent 613 of the zones step's 691 s in 6 slip
// searches and ran out of time in zone 1; seed 2 stopped in zone 0 with real time's
// message ("irregular layout: the sectors of track 296064 ... do not follow any pattern
// of slipped sectors").
TEST_CASE("under a wandering host delay the slipped tracks are found and every zone measured",
          "[extract][late]") {
  const std::uint64_t seed = GENERATE(1, 2);
  INFO("noise seed " << seed);
  HostNoise n = late_tail(seed);
  n.completion_jitter_ms = 0.015;
  n.late_rate = 0.01;
  n.wander_ms = 0.04;
  n.wander_period_ms = 3000.0;
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), n);
  const ExtractResult r = run_extraction(t, 900'000);
  const DiskProfile truth = c2247a_imported(false);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print_extraction("c2247a imported, wandering delay", r, c);
  CHECK(!says(r, "could not be timed"));
  CHECK(!says(r, "are not measured"));
  // Every zone found with its track size, and its spare cylinders counted right: they are
  // read off seek times, which the wander moves too (each crossing is measured between
  // two seeks inside the zone, back to back).
  REQUIRE(r.profile.zones.size() == truth.zones.size());
  for (std::size_t i = 0; i < truth.zones.size(); ++i)
    CHECK(r.profile.zones[i].sectors_per_track == truth.zones[i].sectors_per_track);
  CHECK(c.zones_equal);
  CHECK(c.mapping_differ == 0);
  CHECK(c.defects_missing == 0);
  CHECK(std::fabs(r.period.period_ms / t.true_rotation_ms() - 1.0) < 0.001);
  CHECK(c.max_track_skew_error < 1.0);
  CHECK(c.max_cylinder_skew_error < 1.0);
}

TEST_CASE("explore the noise from the environment", "[.late-explore]") {
  const double budget = std::getenv("BUDGET") ? std::atof(std::getenv("BUDGET")) : 240;
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), from_env());
  try {
    const ExtractResult r = run_extraction(t, budget * 1000, true, stderr);
    print_extraction("c2247a imported, noise from the environment", r,
          compare_profiles(r.profile, c2247a_imported(false), t.true_rotation_ms()));
  } catch (const std::exception& e) {
    std::printf("failed after %.1f s of drive time: %s\n", (t.now_ms() - 1000) / 1000.0, e.what());
  }
}

// Why real time stopped at zone 1's first slipped track (hidden: `test_extract_late
// "[.slip-probe]"`; URI=nbd+unix://... for diskemu in real time, as `nbdkit -U - diskemu
// model=... --run 'URI=$uri ...'`, else virtual time with the noise from the
// environment; C0 the first cylinder, REPS reads a phase): the completion phases of the
// first, middle and last sector of each track of two cylinders against the model's
// sector angles, the first re-read at the end; WAITS=1 instead: one sector's phase
// after issue delays of 0-11 ms, twice.
#include "tools/extract/cache_check.hpp"
#include "tools/extract/cache_defeat.hpp"
#include "tools/extract/nbd_target.hpp"
#include "tools/extract/prober.hpp"

// The hidden probes' instrument, as the extractor sets it up: the C2247A in diskemu
// (URI=) or in virtual time with the noise from the environment (NOISE=0: none), its
// cache found and defeated, the period measured; both printed.
class ProbeRig {
 public:
  ProbeRig() {
    if (const char* uri = std::getenv("URI"))
      target_ = std::make_unique<NbdTarget>(uri);
    else
      target_ = std::make_unique<VirtualTarget>(
          std::make_unique<DiskModel>(c2247a_imported(true)),
          std::getenv("NOISE") && std::atoi(std::getenv("NOISE")) == 0 ? HostNoise{} : from_env());
    target_->set_spin_wait(true);
    const CacheFindings cache = check_cache(*target_);
    std::printf("%s\n", cache.describe().c_str());
    defeat_ = std::make_unique<CacheDefeat>(*target_, cache);
    prober_ = std::make_unique<Prober>(*defeat_, ProberOptions{0, 3000.0, 0.05, cache.behind_ms});
    period_ = prober_->measure_period(100);
    std::printf("period %.5f jitter %.4f late %.3f\n", period_.period_ms, period_.jitter_ms,
                period_.late_fraction);
  }
  Prober& prober() { return *prober_; }
  CacheDefeat& defeat() { return *defeat_; }
  const PeriodEstimate& period() const { return period_; }

 private:
  std::unique_ptr<ProbeTarget> target_;
  std::unique_ptr<CacheDefeat> defeat_;
  std::unique_ptr<Prober> prober_;
  PeriodEstimate period_;
};

TEST_CASE("phases around zone 1's first slipped track", "[.slip-probe]") {
  const DiskProfile truth = c2247a_imported(false);
  const DiskModel m(truth);
  ProbeRig rig;
  Prober& p = rig.prober();
  CacheDefeat& d = rig.defeat();
  const int reps = std::getenv("REPS") ? std::atoi(std::getenv("REPS")) : 5;
  const int c0 = std::getenv("C0") ? std::atoi(std::getenv("C0")) : 575;
  std::vector<std::pair<std::uint64_t, Chs>> lbas;
  for (int c = c0; c <= c0 + 1; ++c)
    for (int h = 0; h < truth.heads; ++h) {
      const std::uint32_t spt = m.sectors_per_track(c);
      for (std::uint32_t s : {0u, spt / 2, spt - 1}) {
        try {
          lbas.push_back({m.chs_to_lba({c, h, s}), Chs{c, h, s}});
        } catch (const std::exception&) {
          std::printf("(%d,%d,%u): no LBA\n", c, h, s);
        }
      }
    }
  if (std::getenv("WAITS")) {
    const std::uint64_t y = lbas.front().first;
    const double spt_w = m.sectors_per_track(c0);
    double base = 0;
    for (int round = 0; round < 2; ++round)
    for (int dd = 0; dd <= 22; ++dd) {
      std::vector<double> ph;
      for (int i = 0; i < 9; ++i) {
        d.read(y + 100000 + 997 * i, 1);
        d.wait_until(d.now_ms() + 0.5 * dd);
        ph.push_back(p.phase_of(d.read(y, 1).complete_ms));
      }
      std::sort(ph.begin(), ph.end());
      const double med = ph[4];
      if (dd == 0 && round == 0) base = med;
      double e = med - base;
      e -= std::round(e);
      std::printf("wait %4.1f ms: phase %+6.2f sectors (spread %.2f)\n", 0.5 * dd, e * spt_w, (ph[6] - ph[2]) * spt_w);
    }
    return;
  }
  const std::uint64_t y0 = lbas.front().first;
  const double spt = m.sectors_per_track(c0);
  const double ph0 = p.phase(y0, reps);
  const double a0 = m.sector_angle(lbas.front().second);
  for (const auto& [y, chs] : lbas) {
    const double ph = p.phase(y, reps);
    double want = m.sector_angle(chs) - a0, got = ph - ph0;
    want -= std::floor(want);
    got -= std::floor(got);
    double err = (got - want) * spt;
    if (err > spt / 2) err -= spt;
    if (err < -spt / 2) err += spt;
    std::printf("lba %8llu (%lld,%d,%u) model %6.2f measured %6.2f sectors, off %+6.2f\n",
                static_cast<unsigned long long>(y), static_cast<long long>(chs.cylinder), chs.head, chs.sector,
                want * spt, got * spt, err);
  }
  for (int i = 0; i < 6; ++i) {
    const std::uint64_t y1 = lbas[15].first, y2 = lbas[17].first;
    double d1 = p.phase(y1, reps) - p.phase(y0, reps), d2 = p.phase(y2, reps) - p.phase(y1, reps);
    double w1 = m.sector_angle(lbas[15].second) - a0, w2 = m.sector_angle(lbas[17].second) - m.sector_angle(lbas[15].second);
    auto e = [&](double x) { x -= std::round(x); return x * spt; };
    std::printf("interleaved: y1-y0 off %+6.2f, y2-y1 off %+6.2f\n", e(d1 - w1), e(d2 - w2));
  }
  for (int i = 0; i < 4; ++i) {
    double again = p.phase(y0, reps) - ph0;
    again -= std::round(again);
    std::printf("lba %8llu again: %+6.2f sectors\n", static_cast<unsigned long long>(y0), again * spt);
  }
}

// What a zone crossing's seek costs, against a seek inside the zone as long (hidden:
// `test_extract_late "[.xing-probe]"`; URI= for diskemu in real time, else virtual time
// with the noise from the environment, NOISE=0 for none; ZONE the zone whose end is
// crossed, A the first offset, N offsets (SAME=1: A, N times), REPS phase reads, SRC the
// sources' sector (else random in the track's first half, as the extractor takes them)).
// Each pair as the extractor measures it: the inside seek's phase, the crossing's, the
// inside's again, then both thresholds; printed against the truth's seek curve (the
// thresholds less the destination's sector time and the seek are the dead time, alike for
// both).
TEST_CASE("a zone crossing's seek against a seek inside the zone", "[.xing-probe]") {
  const DiskProfile truth = c2247a_imported(false);
  const DiskModel m(truth);
  ProbeRig rig;
  Prober& p = rig.prober();
  const PeriodEstimate& pe = rig.period();
  const int reps = std::getenv("REPS") ? std::atoi(std::getenv("REPS")) : 9;
  const std::size_t zi = std::getenv("ZONE") ? std::atoi(std::getenv("ZONE")) : 3;
  const std::int64_t a_first = std::getenv("A") ? std::atoi(std::getenv("A")) : 6;
  const int n = std::getenv("N") ? std::atoi(std::getenv("N")) : 12;
  const std::uint64_t next = m.layout().zone_first_lba(zi + 1);
  const Chs nc = m.lba_to_chs(next);
  const Chs last = m.lba_to_chs(next - 1);
  std::int64_t c = last.cylinder;
  auto has = [&](std::int64_t cyl, std::int32_t h, std::uint32_t s) {
    try {
      return std::optional<std::uint64_t>(m.chs_to_lba({cyl, h, s}));
    } catch (const std::exception&) {
      return std::optional<std::uint64_t>();
    }
  };
  while (!has(c, 0, 0)) --c;
  const std::uint32_t spt = m.sectors_per_track(c), next_spt = m.sectors_per_track(nc.cylinder);
  const std::int64_t dd = nc.cylinder - c;
  std::printf("zone %zu: last cylinder with head 0 %lld, next zone's first LBA %llu at (%lld,%d,%u): %lld cylinders "
              "on; spt %u -> %u\n",
              zi, static_cast<long long>(c), static_cast<unsigned long long>(next), static_cast<long long>(nc.cylinder),
              nc.head, nc.sector, static_cast<long long>(dd), spt, next_spt);
  std::mt19937_64 rng(7);
  auto src_sector = [&](std::uint32_t k) {
    if (const char* v = std::getenv("SRC")) return static_cast<std::uint32_t>(std::atoi(v));
    return static_cast<std::uint32_t>(rng() % (k / 2));
  };
  const double T = pe.period_ms;
  auto wrap = [](double x) { return x - std::round(x); };
  const bool same = std::getenv("SAME") != nullptr;  // one offset N times
  for (int i = 0; i < n; ++i) {
    const std::int64_t a = a_first + (same ? 0 : i);
    const std::int64_t x = a + dd;
    const auto s_in = has(c - x, 0, src_sector(spt)), s_cr = has(c - a, 0, src_sector(spt));
    const auto d_in = has(c, 0, src_sector(spt));
    std::uint64_t d_cr = next + src_sector(next_spt);
    if (const char* v = std::getenv("DST")) d_cr = next + std::atoi(v);
    if (!s_in || !s_cr || !d_in) {
      std::printf("a %lld: no head 0 there\n", static_cast<long long>(a));
      continue;
    }
    const double in1 = p.phase(*d_in, reps), ph_cr = p.phase(d_cr, reps), in2 = p.phase(*d_in, reps);
    double ph_in = in1 + 0.5 * wrap(in2 - in1);
    ph_in -= std::floor(ph_in);
    const Millis s_x = m.seek_ms(x);
    // The thresholds, raw (slack from the destination's completion phase).
    const Millis r_in = p.reach_threshold(*s_in, *d_in, ph_in, s_x - 0.5, s_x + 2.0, 0.005, 3);
    const Millis r_cr = p.reach_threshold(*s_cr, d_cr, ph_cr, s_x - 0.5, s_x + 2.0, 0.005, 3);
    const Millis dead_in = r_in - T / spt - s_x, dead_cr = r_cr - T / next_spt - s_x;
    std::printf("a %2lld x %2lld: src (%lld,0,%llu)/(%lld,0,%llu) seek(x) %.4f; thresholds in %.4f cr %.4f; "
                "less sector and seek: in %.4f cr %.4f, cr - in %+.4f ms; phases in %.4f (%+.4f apart) cr %.4f; dst +%llu\n",
                static_cast<long long>(a), static_cast<long long>(x), static_cast<long long>(c - x),
                static_cast<unsigned long long>(m.lba_to_chs(*s_in).sector), static_cast<long long>(c - a),
                static_cast<unsigned long long>(m.lba_to_chs(*s_cr).sector), s_x, r_in, r_cr, dead_in, dead_cr,
                dead_cr - dead_in, ph_in, wrap(in2 - in1), ph_cr, static_cast<unsigned long long>(d_cr - next));
    std::fflush(stdout);
  }
}

// Without any noise every pair of seeks at a zone crossing reads the same count: the
// crossing's seek and the seek inside the zone measured with it differ by the spare
// cylinders and nothing else. Before: with the drive's read-ahead running on to the end
// of the source's track, a reach probe whose destination arrived just after that track
// end waited for the head switch to the next track (up to 0.89 ms on the C2247A; the
// emulated drive does as DiskSim does), so now and then a crossing (or the seek inside
// the zone paired with it) read 0.06-0.33 ms long, 2-10 cylinders: in virtual time
// without noise zone 3's crossing from 8 cylinders in read 0.33 ms long
// (`test_extract_late "[.xing-probe]"` with NOISE=0 A=8 DST=25), and over seeds 1-24
// of this test 38 pairs read 0.5-10 cylinders off (14.49 for 6, -3.84 for 4). (The
// pairs' counts come from the crossing's note; S0, S1: other seeds.)
TEST_CASE("without noise the pairs at every zone crossing agree on its spare cylinders", "[extract][late]") {
  int bad = 0;
  const std::uint64_t s0 = std::getenv("S0") ? std::strtoull(std::getenv("S0"), nullptr, 10) : 1;
  const std::uint64_t s1 = std::getenv("S1") ? std::strtoull(std::getenv("S1"), nullptr, 10) : 24;
  for (std::uint64_t seed = s0; seed <= s1; ++seed) {
    VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), HostNoise{});
    ExtractOptions o;
    o.budget_ms = 900'000;
    o.seed = seed;
    o.name = "test";
    const ExtractResult r = extract_geometry(t, o);
    for (const std::string& n : r.notes) {
      const auto at = n.find("(the pairs read ");
      if (at == std::string::npos) continue;
      const auto on = n.rfind(" cylinders on (the pairs read ");
      const double d = std::atof(n.c_str() + n.rfind(": ", on) + 2);
      // Each pair's count, as the last round read it.
      bool off = false;
      for (const char* q = n.c_str() + at + 16; *q && *q != ')';) {
        char* e = nullptr;
        const double v = std::strtod(q, &e);
        if (e == q) break;
        off = off || std::fabs(v - d) > 0.5;
        q = e;
        while (*q == ',' || *q == ' ') ++q;
      }
      if (off) {
        ++bad;
        std::printf("seed %llu: %s\n", static_cast<unsigned long long>(seed), n.c_str());
      }
    }
    const Comparison c = compare_profiles(r.profile, c2247a_imported(false), t.true_rotation_ms());
    INFO("seed " << seed);
    CHECK(c.zones_equal);
  }
  CHECK(bad == 0);
}
