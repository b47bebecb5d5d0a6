// Geometry extraction against emulated disks in virtual time: the HP 97560 (JW's
// model and the full one with skews, head switch and overhead) and a zoned disk with
// injected host noise. Tolerances from issue 7.
#include <catch2/catch.hpp>

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "predictor/disk_model.hpp"
#include "predictor/profile.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/virtual_target.hpp"

using namespace disksched;
using namespace disksched::extract;

namespace {

ExtractResult run(VirtualTarget& t, Millis budget_ms, std::uint64_t seed = 7) {
  ExtractOptions o;
  o.budget_ms = budget_ms;
  o.seed = seed;
  o.name = "test";
  return extract_geometry(t, o);
}

void print(const std::string& title, const ExtractResult& r, const Comparison& c) {
  std::printf("%s: %llu probes, %.1f s virtual, validation %.1f %% within %.3f ms\n", title.c_str(),
              static_cast<unsigned long long>(r.probes), r.elapsed_ms / 1000.0,
              100 * r.validation.within_tolerance, r.validation.tolerance_ms);
  for (const auto& l : c.lines) std::printf("  %s\n", l.c_str());
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
  std::printf("  seek form %s, rms %.3f (two %.3f three %.3f), %zu distances, %zu rejected\n",
              r.seek.form.c_str(), r.seek.rms_ms, r.seek.two_piece_rms_ms, r.seek.three_piece_rms_ms,
              r.seek.table.size(), r.seek.rejected.size());
}

}  // namespace

TEST_CASE("extraction recovers the full HP 97560 in virtual time", "[extract]") {
  VirtualTarget t(load_model("hp97560-full"), HostNoise{});
  const ExtractResult r = run(t, 240'000);
  const Comparison c = compare_profiles(r.profile, hp97560_full_profile(), t.true_rotation_ms());
  print("hp97560-full", r, c);
  CHECK(c.pass);
}

TEST_CASE("extraction recovers JW's HP 97560 (no skew, no head switch, no overhead)", "[extract]") {
  VirtualTarget t(load_model("hp97560"), HostNoise{});
  const ExtractResult r = run(t, 240'000);
  const Comparison c = compare_profiles(r.profile, hp97560_profile(), t.true_rotation_ms());
  print("hp97560", r, c);
  CHECK(c.pass);
}

namespace {

// Five zones, per-zone skews, a head switch, overheads and a three-piece seek curve.
DiskProfile zoned_truth() {
  DiskProfile p;
  p.name = "zoned-5400";
  p.heads = 4;
  p.rotation_ms = 60000.0 / 5400.0;
  p.zones = {ZoneSpec{0, 199, 96, {}, {}}, ZoneSpec{200, 449, 88, {}, {}},
             ZoneSpec{450, 699, 80, 10.0, 20.0}, ZoneSpec{700, 899, 72, {}, {}},
             ZoneSpec{900, 1099, 64, 9.0, 17.0}};
  p.track_skew_sectors = 12;
  p.cylinder_skew_sectors = 24;
  p.head_switch_ms = 0.9;
  p.overhead_ms = PerOp{0.5, 0.6, 0.2};
  p.completion_ms = PerOp{0.1, 0.15, 0.0};
  p.seek.form = SeekCurveSpec::Form::ThreePiece;
  p.seek.single_cylinder_ms = 1.1;
  p.seek.short_a = 1.6;
  p.seek.short_b = 0.22;
  p.seek.boundary = 400;
  p.seek.long_a = 4.9;
  p.seek.long_b = 0.0042;
  p.rotation_phase = 0.37;
  return p;
}

HostNoise vm_noise(std::uint64_t seed) {
  HostNoise n;
  n.issue_base_ms = 0.03;
  n.issue_jitter_ms = 0.02;
  n.completion_base_ms = 0.02;
  n.completion_jitter_ms = 0.01;
  n.preemption_rate = 0.005;
  n.preemption_flagged = 0.5;
  n.rpm_error = 0.002;
  n.seed = seed;
  return n;
}

}  // namespace

TEST_CASE("extraction recovers a zoned disk under host noise", "[extract]") {
  const DiskProfile truth = zoned_truth();
  VirtualTarget t(std::make_unique<DiskModel>(truth), vm_noise(11));
  const ExtractResult r = run(t, 240'000, 3);
  const Comparison c = compare_profiles(r.profile, truth, t.true_rotation_ms());
  print("zoned", r, c);
  CHECK(c.pass);
}
