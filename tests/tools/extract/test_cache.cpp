// Extraction against a drive whose buffer answers reads (issue 12): the HP C2247A's
// geometry (hand-made profile, zones packed) with its cache from DiskSim's diskspecs
// (256-sector segments, two for reads where DiskSim's file has one beside the write
// segment, read-ahead to 128 sectors past a request, read-ahead on an idle hit) and its
// bus (0.1701 ms a sector). The extractor must find the cache, probe
// around it and still meet issue 7's tolerances; with the defeat off it must not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"
#include "predictor/profile.hpp"
#include "tools/extract/cache_defeat.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/prober.hpp"
#include "tools/extract/virtual_target.hpp"
#include "tests/tools/extract/c2247a_extraction.hpp"

using namespace disksched;
using namespace disksched::extract;
using namespace disksched::extract::testing;

namespace {

DiskProfile c2247a(bool cache) {
  DiskProfile p = load_profile(TEST_DATA_DIR "/hp_c2247a-hand.json");
  if (!cache) return p;
  p.drive.has_bus = p.drive.has_cache = true;
  p.drive.bus.read_sector = 0.1701;
  p.drive.bus.write_sector = 0.18686;
  // Write-behind live (fast_write 1; the validated drive had it off).
  p.drive.cache = CacheParams{.segments = 2, .segment_sectors = 256, .write_segments = 1,
                              .separate_write_segment = true, .continuous_read = 3,
                              .max_read_ahead = 128, .read_ahead_over_requested = true,
                              .read_ahead_on_idle_hit = true, .fast_write = 1,
                              .combine_sequential_writes = true};
  return p;
}

}  // namespace

TEST_CASE("the cache check finds the C2247A's read cache and read-ahead, and none without", "[extract]") {
  VirtualTarget cached(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  const CacheFindings f = check_cache(cached);
  INFO(f.describe());
  CHECK(f.read_cache);
  CHECK(f.read_ahead);
  CHECK(f.read_ahead_sectors >= 64);
  CHECK(f.read_ahead_sectors <= 128);
  CHECK(f.evicting_reads == 2);  // two segments, least recently used goes
  VirtualTarget plain(std::make_unique<DiskModel>(c2247a(false)), HostNoise{});
  const CacheFindings g = check_cache(plain);
  INFO(g.describe());
  CHECK_FALSE(g.any());
}

TEST_CASE("write-behind is found where the drive acknowledges writes from its buffer", "[extract]") {
  // x on sector 1 of a track, y half a track further on the same track.
  auto places = [](const DiskModel& m) {
    std::uint64_t x = 100'000;
    while (m.lba_to_chs(x).sector != 1) ++x;
    return std::pair{x, x + m.sectors_per_track(m.lba_to_chs(x).cylinder) / 2};
  };
  struct Case { const char* what; bool cache; int fast_write; bool want; };
  for (const Case& c : {Case{"write-behind on", true, 1, true}, Case{"cache, write-behind off", true, 0, false},
                        Case{"no cache", false, 0, false}}) {
    DiskProfile p = c2247a(c.cache);
    p.drive.cache.fast_write = c.fast_write;
    VirtualTarget t(std::make_unique<DiskModel>(p), HostNoise{});
    const auto [x, y] = places(dynamic_cast<const DiskModel&>(t.model()));
    CacheFindings f;
    CHECK_FALSE(f.write_behind.has_value());
    check_write_behind(t, x, y, f);
    INFO(c.what << ": " << f.describe_write_behind());
    REQUIRE(f.write_behind.has_value());
    CHECK(*f.write_behind == c.want);
    // To the media a write of y waits for it to come round: about half a revolution.
    CHECK(f.fua_write_ms > 0.3 * (60000.0 / 5400.0));
    if (c.want) CHECK(f.buffered_write_ms < 2.0);  // overhead and one sector over the bus
  }
}

TEST_CASE("extraction through the C2247A's cache meets the tolerances", "[extract]") {
  VirtualTarget t(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  const ExtractResult r = run_extraction(t, 300'000, true);
  const Comparison c = compare_profiles(r.profile, c2247a(false), t.true_rotation_ms());
  print_extraction("c2247a, cache defeated", r, c);
  CHECK(r.cache.read_cache);
  CHECK(c.pass);
  // Past the check, no geometry probe was answered by the buffer: the first period
  // step that the buffer answered and the check, on the same drive from the same start,
  // saw as many hits. (The read-cache step times the buffer's hits on purpose: off here.)
  VirtualTarget geometry_only(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  run_extraction(geometry_only, 300'000, true, nullptr, /*drive_steps=*/false);
  VirtualTarget same(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  CHECK_THROWS_AS(run_extraction(same, 300'000, false), CacheAnswersError);
  check_cache(same);
  CHECK(geometry_only.hits() == same.hits());
}

TEST_CASE("without the defeat the C2247A's cache fools the extraction", "[extract]") {
  VirtualTarget t(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  bool fooled = false;
  try {
    const ExtractResult r = run_extraction(t, 300'000, false);
    const Comparison c = compare_profiles(r.profile, c2247a(false), t.true_rotation_ms());
    print_extraction("c2247a, cache left on", r, c);
    fooled = !c.pass;
  } catch (const std::exception& e) {
    std::printf("c2247a, cache left on: %s\n", e.what());
    fooled = true;
  }
  CHECK(fooled);
}

TEST_CASE("behind the defeat a re-read, a read within read-ahead and a reach pair all miss", "[extract]") {
  VirtualTarget t(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  const CacheFindings f = check_cache(t);
  CacheDefeat d(t, f);
  const std::uint64_t hits = t.hits();
  const std::uint64_t x = 500'000;
  const ProbeResult a = d.read(x, 1);
  const ProbeResult b = d.read(x, 1);                 // the same sector again
  CHECK(b.complete_ms - a.complete_ms > 0.9 * (60000.0 / 5400.0));  // a turn, not 0.8 ms
  d.read(x + 40, 1);                                  // read-ahead of x would hold it
  d.pair(x + 40, x);                                  // both held: cleared before src
  d.read(x + 40, 1);
  const std::uint64_t evicted = d.evictions();
  d.read(x, 1);                                       // nothing between src and dst
  CHECK(d.evictions() == evicted);
  CHECK(t.hits() == hits);
  CHECK(d.ahead_of(x, x + 40));
  CHECK_FALSE(d.ahead_of(x + 40, x));
}

TEST_CASE("extraction through the imported C2247A's cache sees its front, slipped and spare tracks",
          "[extract]") {
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), HostNoise{});
  const ExtractResult r = run_extraction(t, 240'000, true);  // the bench's budget
  const DiskProfile truth = c2247a_imported(false);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print_extraction("c2247a imported, cache defeated", r, c);
  CHECK(r.cache.read_cache);
  CHECK(c.pass);
  CHECK(c.zones_equal);
  CHECK(c.mapping_differ == 0);
  CHECK(c.cylinder_shift == 1);  // cylinder 0 holds no LBA: no timing shows it
  CHECK(r.elapsed_ms <= 240'000);
  const DiskProfile& p = r.profile;
  REQUIRE(p.zones.size() == 8);
  CHECK(p.layout.sparing == Sparing::TracksPerZone);
  CHECK(p.zones[0].empty_front == 4 * 96);  // head 4 of LBA 0's cylinder
  // DiskSim's spares per zone, a slipped track counted as one of them; the slips it
  // lists in the spare space (two in zone 0, one each in zones 2, 6 and 7) and the
  // last zone's spares after the last LBA hold no LBA to show them.
  const std::vector<std::uint64_t> spares{325, 130, 65, 78, 52, 104, 78};
  for (std::size_t i = 0; i < spares.size(); ++i) {
    INFO("zone " << i);
    CHECK(p.zones[i].spares == spares[i]);
  }
  // Zone 0's slipped tracks counted from LBA 0's cylinder (13 tracks on), zone 1's as stated.
  CHECK(p.zones[0].slips == std::vector<std::uint64_t>{455, 513, 1191, 1848, 2434, 2667, 3085, 3670, 4867, 4906});
  CHECK(p.zones[1].slips == truth.zones[1].slips);
  // Each zone after spare tracks placed at its own angle (chained from the zone before,
  // 72 % of the validation pairs miss): the validation pairs are predicted.
  for (std::size_t i = 1; i < 8; ++i) CHECK(p.zones[i].first_block_sectors.has_value());
  CHECK(r.validation.within_tolerance > 0.9);
}

// (Before the zones step stopped at 85 % of the budget, a 60 s budget took 170.6 s of
// the drive's time, all 8 zones found.)
TEST_CASE("on a short budget the run ends near it and says which zones it did not measure", "[extract]") {
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), HostNoise{});
  const ExtractResult r = run_extraction(t, 60'000, true);
  const DiskProfile truth = c2247a_imported(false);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print_extraction("c2247a imported, 60 s budget", r, c);
  auto said = [&](const char* what) {
    return std::any_of(r.notes.begin(), r.notes.end(),
                       [&](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  CHECK(said("zones: out of its time"));
  CHECK(said("are not measured"));
  CHECK(r.elapsed_ms <= 1.2 * 60'000);
  // What it measured is right: the period, the heads, the first zone's track size (its
  // data end was found; the seeks that count its spare cylinders did not fit).
  CHECK(std::fabs(r.period.period_ms / t.true_rotation_ms() - 1.0) < 0.001);
  CHECK(r.profile.heads == truth.heads);
  REQUIRE(!r.profile.zones.empty());
  CHECK(r.profile.zones[0].sectors_per_track == truth.zones[0].sectors_per_track);
}

// Real time adds noise of about a hundredth of a millisecond to every probe; far out a
// cylinder is 0.03 ms of seek, so a count of spare cylinders read off one crossing and
// one seek inside the zone came out one short (README, issue 12). Each completion here
// is seen up to 0.01 ms early or late at random, in eight runs (seeds 1-8): the counts
// must all still be right. (Counted from one crossing and the seeks inside the zone,
// as before, seeds 1, 3 and 6 counted a zone's spare cylinders two off: zone 3's 6 as 8
// with seed 1.)
TEST_CASE("the imported C2247A's spare cylinders are counted right under +-0.01 ms of timing noise",
          "[extract]") {
  HostNoise noise;
  noise.completion_base_ms = 0.02;
  noise.completion_uniform_ms = 0.01;
  noise.seed = GENERATE(range(1, 9));
  INFO("noise seed " << noise.seed);
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), noise);
  const ExtractResult r = run_extraction(t, 240'000, true);
  const DiskProfile truth = c2247a_imported(false);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print_extraction("c2247a imported, +-0.01 ms noise", r, c);
  REQUIRE(r.profile.zones.size() == 8);
  const std::vector<std::uint64_t> spares{325, 130, 65, 78, 52, 104, 78};
  for (std::size_t i = 0; i < spares.size(); ++i) {
    INFO("zone " << i);
    CHECK(r.profile.zones[i].spares == spares[i]);
  }
  CHECK(c.zones_equal);
  CHECK(c.mapping_differ == 0);
  CHECK(r.elapsed_ms <= 240'000);
}

TEST_CASE("behind the defeat a re-read takes about a revolution once the evicting places are learned",
          "[extract]") {
  // Each re-read of a held sector needs two evicting reads first. Placed anywhere, each
  // waits half a revolution on average and the re-read lands two revolutions on; placed
  // where they come round soonest, all three fit in about one.
  VirtualTarget t(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  const CacheFindings f = check_cache(t);
  REQUIRE(f.evicting_reads == 2);
  CacheDefeat d(t, f);
  const std::uint64_t hits = t.hits();
  const Millis period = t.true_rotation_ms();
  for (const std::uint64_t x : {300'000ull, 1'500'000ull}) {  // zones of 96 and 64 sectors a track
    std::vector<Millis> done;
    for (int i = 0; i < 60; ++i) done.push_back(d.read(x, 1).complete_ms);
    double turns = 0;
    for (std::size_t i = 40; i < done.size(); ++i) turns += (done[i] - done[i - 1]) / period;
    turns /= static_cast<double>(done.size() - 40);
    INFO("sector " << x << ": " << turns << " revolutions a re-read");
    CHECK(turns < 1.25);
  }
  CHECK(t.hits() == hits);  // every re-read reached the platter
}

TEST_CASE("the period fits through re-reads behind the defeat on a late host", "[extract]") {
  // Re-reads a revolution apart, now and then two: their median gap is off by a few
  // hundredths of a millisecond on a late host, which 400 reads' revolution counts do not
  // survive unless the fit refines the period as it counts. Where two revolutions are as
  // common as one, the median falls between them; the densest gap is one of them.
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    VirtualTarget t(std::make_unique<DiskModel>(seed % 2 ? c2247a(true) : c2247a_imported(true)),
                    *noise_preset("late", seed));
    const CacheFindings f = check_cache(t);
    CacheDefeat d(t, f);
    Prober p(d, ProberOptions{0, 3000.0, 0.05, f.behind_ms});
    const PeriodEstimate e = p.measure_period(400);
    INFO("seed " << seed);
    CHECK(e.period_ms == Approx(t.true_rotation_ms()).epsilon(1e-4));
  }
}

// Late completions (`--noise late`) once made read-ahead hits look like misses (1.4-3.1
// ms against a threshold of 2.74 ms: seed 38 of 96 in virtual time), and once two
// re-reads that hit were each seen 1.5 ms late, so one evicting read was taken for two
// (seed 40). Before, a missed read-ahead left the defeat a window of 0: its evicting
// reads went next to the sector they were to push out, all hits, and the extraction
// stopped at "no rotation signal". Here the check alone, first thing on a fresh target,
// on the hand-made drive and on the imported one with the bench's cache: before, 1 of
// these 400 (seed 334) came out wrong; test-cli.sh replays the extractions.
TEST_CASE("on a late host the cache check sees the read-ahead and counts the segments",
          "[extract]") {
  int found = 0;
  DiskProfile imp = c2247a_imported(true);  // with bench/extract/hp_c2247a-drive.json's cache
  imp.drive.cache.high_water = imp.drive.cache.low_water = 0;
  imp.drive.cache.read_hits_on_write_data = false;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    VirtualTarget t(std::make_unique<DiskModel>(seed % 2 ? c2247a(true) : imp), *noise_preset("late", seed));
    const CacheFindings f = check_cache(t);
    INFO("seed " << seed << ": " << f.describe());
    CHECK(f.read_cache);
    CHECK(f.evicting_reads >= 2);  // never one short
    found += f.read_ahead;
  }
  CHECK(found == 400);
}

TEST_CASE("behind a read cache whose read-ahead was not seen the defeat still reaches the platter",
          "[extract]") {
  VirtualTarget t(std::make_unique<DiskModel>(c2247a(true)), HostNoise{});
  CacheFindings f = check_cache(t);
  REQUIRE(f.read_ahead);
  f.read_ahead = false;  // as a late host once made the check say
  f.read_ahead_sectors = 0;
  CacheDefeat d(t, f);
  const std::uint64_t hits = t.hits();
  for (int i = 0; i < 20; ++i) d.read(0, 1);
  CHECK(t.hits() == hits);
}

TEST_CASE("a zone end counted wrong says whether the extraction flagged it", "[extract]") {
  const DiskProfile truth = c2247a(false);
  REQUIRE(truth.zones.size() > 2);
  DiskProfile got = truth;
  --got.zones[0].last_cylinder;  // zone 0's spare cylinders counted one short
  --got.zones[1].first_cylinder;
  const std::int64_t inside = got.zones[0].last_cylinder - 3, elsewhere = got.zones[1].last_cylinder - 3;
  const std::string flag = fmt::format(
      "cylinder {}: the seeks into the next zone put it 3.48 cylinders on (+- 0.35): its spare cylinders may be "
      "off by one",
      inside);
  auto said = [](const Comparison& c) {
    return std::any_of(c.lines.begin(), c.lines.end(),
                       [](const std::string& l) { return l.find("the extraction said so") != std::string::npos; });
  };
  Comparison c = compare_profiles(got, truth);
  CHECK_FALSE(c.pass);
  CHECK(c.zones_flagged.empty());
  CHECK_FALSE(said(c));
  got.source["notes"] = {fmt::format("cylinder {}: the seeks into the next zone put it 5.02 cylinders on (+- "
                                     "0.31): its spare cylinders may be off by one",
                                     elsewhere),
                         "cylinder 3: something else"};
  c = compare_profiles(got, truth);
  CHECK(c.zones_flagged.empty());  // a flag on another zone's end is not this one's
  got.source["notes"].push_back(flag);
  c = compare_profiles(got, truth);
  CHECK_FALSE(c.pass);  // still outside the tolerance: only now it was said
  CHECK(c.zones_flagged == flag);
  CHECK(said(c));
}
