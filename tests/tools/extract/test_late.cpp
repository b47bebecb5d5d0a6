// Extraction against the imported HP C2247A (cache on) when a share of completions is
// seen late by a heavy-tailed amount, as `nbdkit diskemu` on a shared host shows in
// real time (README: completion jitter 0.086 ms, 12 % of reference completions late).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <memory>
#include <string>

#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"
#include "predictor/profile.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/virtual_target.hpp"

using namespace disksched;
using namespace disksched::extract;

namespace {

DiskProfile c2247a_imported(bool cache) {
  DiskProfile p = disksim::import_disksim(DISKSIM_VALID_DIR "/hp_c2247a.parv").profile;
  p.drive.has_cache = p.drive.has_bus = cache;
  p.drive.cache.fast_write = 1;
  return p;
}

// The real-time run's noise (README: completion jitter 0.086 ms, 12 % of reference
// completions late, on an idle machine): every completion seen 0.05 ms +- 0.01 ms after
// the device's, plus an exponential 0.06 ms; three in ten later still, by an exponential
// 0.6 ms. The period step measures 0.07-0.09 ms of jitter and 11-14 % late from it.
HostNoise late_tail(std::uint64_t seed) {
  HostNoise n;
  n.completion_base_ms = 0.05;
  n.completion_uniform_ms = 0.01;
  n.completion_jitter_ms = 0.06;
  n.late_rate = 0.3;
  n.late_mean_ms = 0.6;
  n.seed = seed;
  return n;
}

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
  return n;
}

ExtractResult run(VirtualTarget& t, Millis budget_ms, std::FILE* progress = nullptr) {
  ExtractOptions o;
  o.budget_ms = budget_ms;
  o.seed = 3;
  o.name = "test";
  o.progress = progress;
  return extract_geometry(t, o);
}

void print(const char* title, const ExtractResult& r, const Comparison& c) {
  std::printf("%s: %llu probes, %.1f s virtual, validation %.1f %%, jitter %.3f ms, %.0f %% late\n", title,
              static_cast<unsigned long long>(r.probes), r.elapsed_ms / 1000.0, 100 * r.validation.within_tolerance,
              r.period.jitter_ms, 100 * r.period.late_fraction);
  for (const auto& l : c.lines) std::printf("  %s\n", l.c_str());
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
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
  const ExtractResult r = run(t, 240'000);
  const DiskProfile truth = c2247a_imported(false);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print("c2247a imported, late completions", r, c);
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

TEST_CASE("explore the noise from the environment", "[.late-explore]") {
  const double budget = std::getenv("BUDGET") ? std::atof(std::getenv("BUDGET")) : 240;
  VirtualTarget t(std::make_unique<DiskModel>(c2247a_imported(true)), from_env());
  try {
    const ExtractResult r = run(t, budget * 1000, stderr);
    print("c2247a imported, noise from the environment", r,
          compare_profiles(r.profile, c2247a_imported(false), t.true_rotation_ms()));
  } catch (const std::exception& e) {
    std::printf("failed after %.1f s of drive time: %s\n", (t.now_ms() - 1000) / 1000.0, e.what());
  }
}
