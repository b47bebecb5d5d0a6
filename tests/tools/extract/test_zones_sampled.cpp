// The sampled zones step (tools/extract/zones_sampled.cpp) against drives of today, in
// virtual time: the step alone on a drive without host noise finds the truth's zones
// exactly, and the plan chooses it behind a busy or late host, where the whole
// extraction then meets `extract check --tolerances today`.
#include <catch2/catch.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "predictor/disk_model.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/instrument.hpp"
#include "tools/extract/steps.hpp"
#include "tools/extract/tolerances.hpp"
#include "tools/extract/virtual_target.hpp"
#include "tools/extract/zones_sampled.hpp"

using namespace disksched;
using namespace disksched::extract;

namespace {

const DiskProfile& truth_of(const VirtualTarget& t) { return dynamic_cast<const DiskModel&>(t.model()).profile(); }

}  // namespace

TEST_CASE("sampled zones of a drive of today without host noise are the truth's", "[extract][zones-sampled]") {
  const std::string model = GENERATE(as<std::string>{}, "laptop5400-320gb-nocache", "sas15k-600gb-nocache");
  VirtualTarget t(load_model(model), HostNoise{});
  const DiskProfile& truth = truth_of(t);
  ExtractOptions o;
  o.budget_ms = 570'000;
  const std::vector<std::string> names{"period", "tracks", "heads", "zones"};
  Instrument in(t, o, CacheFindings{}, nullptr, t.now_ms(), names);
  Findings f;
  measure_period(in, f, 0);
  first_tracks(in, f, 0);
  find_heads(in, f, 0.45);  // the plan's share (extractor.cpp)
  // Without noise the plan walks the cylinders: the sampled step is run on its own here.
  CHECK_FALSE(zones_by_sampling(in, f));
  const Millis start = in.elapsed();
  find_zones_sampled(in, f, 0.25);
  const Layout& L = f.result.layout;
  INFO(model << ": " << f.zones_how);
  REQUIRE(L.heads == truth.heads);
  REQUIRE(L.zones.size() == truth.zones.size());
  for (std::size_t i = 0; i < L.zones.size(); ++i) {
    INFO("zone " << i);
    CHECK(L.zones[i].spt == truth.zones[i].sectors_per_track);
    CHECK(L.zones[i].first_cylinder == truth.zones[i].first_cylinder);
    // Every zone but the last ends where the truth's does; the last runs to the last LBA.
    if (i + 1 < L.zones.size()) CHECK(L.zones[i].last_cylinder() == truth.zones[i].last_cylinder);
    CHECK(*L.zones[i].track_skew == truth.zones[i].track_skew_sectors.value_or(truth.track_skew_sectors));
    CHECK(*L.zones[i].cylinder_skew == truth.zones[i].cylinder_skew_sectors.value_or(truth.cylinder_skew_sectors));
  }
  CHECK(f.zones_unsearched == t.sectors());
  CHECK(f.skews_sampled);
  CHECK(f.zones_how.rfind("sampled:", 0) == 0);
  // Far from a walk's time: 16-20 zones in well under the step's share.
  CHECK(in.elapsed() - start < 0.25 * o.budget_ms);
}

TEST_CASE("behind a noisy host the plan samples the zones of a drive of today, within `today`",
          "[extract][zones-sampled]") {
  // (The 15k drive's heads are measured too: its head switch and one-cylinder seek are as
  // long as each other, and the two-cylinder seek only 0.022 ms longer; the heads step's
  // own test is test_heads.cpp.)
  const auto [model, noise, heads] = GENERATE(table<std::string, std::string, int>({
      {"laptop5400-320gb-nocache", "busy", 0},
      {"laptop5400-320gb-nocache", "late", 0},
      {"sas15k-600gb-nocache", "busy", 0},
  }));
  VirtualTarget t(load_model(model), *noise_preset(noise, 3));
  ExtractOptions o;
  o.budget_ms = 570'000;
  o.seed = 3;
  if (heads > 0) o.heads = heads;
  const ExtractResult r = extract_geometry(t, o);
  const Comparison c = compare_profiles(r.profile, truth_of(t), t.true_rotation_ms(), *tolerances_named("today"));
  std::printf("%s behind a %s host: %.1f s virtual\n", model.c_str(), noise.c_str(), r.elapsed_ms / 1000.0);
  for (const auto& l : c.lines) std::printf("  %s\n", l.c_str());
  CHECK(c.pass);
  CHECK(r.failures.empty());
  CHECK(r.elapsed_ms <= o.budget_ms);
  const std::string zones = r.profile.source["parameters"]["zones"];
  CHECK(zones.rfind("sampled:", 0) == 0);
}
