// The zones step with default flags (570 s budget), in virtual time: a drive of today
// whose seeks grow by microseconds a cylinder (sas15k-600gb).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>

#include "predictor/disk_model.hpp"
#include "predictor/device_model.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/virtual_target.hpp"
#include "tests/tools/extract/c2247a_extraction.hpp"

using namespace disksched;
using namespace disksched::extract;
using namespace disksched::extract::testing;

namespace {

constexpr Millis kDefaultBudget = 570'000;

ExtractResult extract_default(VirtualTarget& t, std::uint64_t seed) {
  ExtractOptions o;
  o.budget_ms = kDefaultBudget;
  o.seed = seed;
  o.name = "test";
  return extract_geometry(t, o);
}

bool says(const ExtractResult& r, const std::string& what) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

}  // namespace

// sas15k's seeks near 15 cylinders grow by 1.7 us a cylinder; its zones follow each
// other with no spare cylinder. Before: the crossings' reach thresholds were bisected to
// 10 us, so a crossing and the seek inside the zone paired with it came out equal and
// each pair read back the first count it was measured at (seed 1: zone 4's 1 as 2,
// "+- 0.00"), and the run failed its crossing check. Now the thresholds there are
// bisected to a quarter of a cylinder's seek.
TEST_CASE("sas15k's zone crossings are counted from seeks a microsecond apart", "[extract][zones]") {
  const std::uint64_t seed = GENERATE(1, 2);
  INFO("seed " << seed);
  VirtualTarget t(load_model("sas15k-600gb"), *noise_preset("none", seed));
  const ExtractResult r = extract_default(t, seed);
  const auto platter = load_model("sas15k-600gb-nocache");
  const DiskProfile& truth = dynamic_cast<const DiskModel&>(*platter).profile();
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print_extraction("sas15k-600gb, no noise", r, c);
  for (const std::string& f : r.failures) INFO(f);
  CHECK(r.failures.empty());
  CHECK(c.zones_equal);
  CHECK(c.mapping_differ == 0);
  CHECK(r.elapsed_ms <= kDefaultBudget);
}
