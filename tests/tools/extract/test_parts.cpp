// The pieces of extraction on their own: byte ranges, mount tables, boundary classes,
// the prober's period and phases, the track scan and the profile comparison.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <memory>
#include <random>

#include "predictor/disk_model.hpp"
#include "predictor/profile.hpp"
#include "predictor/rotation_estimator.hpp"
#include "tests/tools/extract/busy_host.hpp"
#include "tools/extract/block_target.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/device_checks.hpp"
#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/layout.hpp"
#include "tools/extract/prober.hpp"
#include "tools/extract/progress.hpp"
#include "tools/extract/stats.hpp"
#include "tools/extract/virtual_target.hpp"
#include "tools/extract/writable.hpp"

using namespace disksched;
using namespace disksched::extract;

TEST_CASE("--allow-writes ranges parse and convert to sectors", "[extract][parts]") {
  CHECK(parse_byte_range("1048576:65536") == std::make_pair<std::uint64_t, std::uint64_t>(1048576, 65536));
  CHECK(parse_byte_range("1M:64K") == std::make_pair<std::uint64_t, std::uint64_t>(1 << 20, 64 << 10));
  CHECK(parse_byte_range("2G:1m").first == (2ull << 30));
  CHECK_THROWS_WITH(parse_byte_range("1M"), Catch::Contains("OFFSET:LENGTH"));
  CHECK_THROWS_WITH(parse_byte_range("x:1"), Catch::Contains("offset 'x'"));
  CHECK_THROWS_WITH(parse_byte_range("0:12Q"), Catch::Contains("length '12Q'"));
  CHECK_THROWS_WITH(parse_byte_range("0:0"), Catch::Contains("> 0"));
  CHECK(to_sectors({1024, 2048}, 512, 100) == std::make_pair<std::uint64_t, std::uint64_t>(2, 5));
  CHECK_THROWS_WITH(to_sectors({100, 512}, 512, 100), Catch::Contains("multiples"));
  CHECK_THROWS_WITH(to_sectors({0, 512 * 101}, 512, 100), Catch::Contains("only"));
}

TEST_CASE("mounted devices are found in a mountinfo table", "[extract][parts]") {
  const std::string mi =
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
      "23 22 0:21 / /proc rw - proc proc rw\n"
      "40 22 8:17 / /data rw,relatime - xfs /dev/sdb1 rw\n"
      "41 22 8:17 /sub /mnt/bind rw,relatime - xfs /dev/sdb1 rw\n";
  CHECK(mounts_of(mi, {"8:16", "8:17"}) == std::vector<std::string>{"/data", "/mnt/bind"});
  CHECK(mounts_of(mi, {"8:32"}).empty());
  // A regular file is never "in use" in this sense.
  CHECK(device_users("/proc/self/mountinfo").empty());
}

TEST_CASE("boundary classes give the number of heads from the alignment of track 0", "[extract][parts]") {
  // 19 heads: cylinder switches at boundaries 19, 38.
  std::vector<double> v;
  for (int k = 1; k <= 40; ++k) v.push_back(k % 19 == 0 ? 18.0 : 8.0);
  BoundaryClasses c = classify_boundaries(v, 1.0);
  CHECK(c.heads == 19);
  CHECK(c.track_value == 8.0);
  CHECK(c.cylinder_value == 18.0);
  // Two heads: the classes alternate; the even boundaries are the cylinder switches.
  v.clear();
  for (int k = 1; k <= 8; ++k) v.push_back(k % 2 == 0 ? 3.0 : 12.0);
  c = classify_boundaries(v, 1.0);
  CHECK(c.heads == 2);
  CHECK(c.cylinder_value == 3.0);
  // Equal values do not tell; a walk too short to see a second cylinder switch neither.
  CHECK(classify_boundaries(std::vector<double>(30, 5.0), 1.0).heads == 0);
  v.assign(25, 8.0);
  v[18] = 18.0;
  CHECK(classify_boundaries(v, 1.0).heads == 0);
  // Noise below the gap does not split a class.
  CHECK(classify_boundaries({8.0, 8.3, 7.8, 8.1}, 1.0).heads == 0);
}

TEST_CASE("boundary classes find LBA 0's head when an empty front puts it past head 0", "[extract][parts]") {
  // The imported HP C2247A: 13 heads, LBA 0 on head 4, so cylinder switches start
  // tracks 9, 22, 35, ... counted from LBA 0's.
  std::vector<double> v;
  for (int k = 1; k <= 48; ++k) v.push_back((k + 4) % 13 == 0 ? 32.0 : 14.0);
  BoundaryClasses c = classify_boundaries(v, 1.0);
  CHECK(c.heads == 13);
  CHECK(c.first_head == 4);
  CHECK(c.cylinder_value == 32.0);
  CHECK(c.track_value == 14.0);
  // Two switches off the multiples could be an outlier and a switch: a third decides.
  v.resize(24);
  CHECK(classify_boundaries(v, 1.0).heads == 0);
  // On head 0 two are enough, as before.
  v.assign(40, 8.0);
  v[18] = v[37] = 18.0;
  c = classify_boundaries(v, 1.0);
  CHECK(c.heads == 19);
  CHECK(c.first_head == 0);
}

namespace {

// The layout puts every LBA at the physical sector the disk model of `p` (its seek one
// flat table point: only the mapping matters) puts it; with `and_back`, the physical
// sector maps back to the LBA too.
void check_against_model(const Layout& L, DiskProfile p, bool and_back) {
  p.seek.form = SeekCurveSpec::Form::Table;
  p.seek.points = {{1, 1.0}};
  const DiskModel m(p);
  for (std::uint64_t lba = 0; lba < m.lbas(); ++lba) {
    const Chs c = m.lba_to_chs(lba);
    REQUIRE(L.pba_of_lba(lba) == L.pba(c.cylinder, c.head, c.sector));
    if (and_back) REQUIRE(L.lba_of_pba(L.pba(c.cylinder, c.head, c.sector)) == lba);
  }
}

}  // namespace

TEST_CASE("the layout maps an empty front, slipped and spare tracks like the disk model", "[extract][parts]") {
  // Two heads; zone 0: four cylinders of 10 sectors, its first track empty, track 3
  // slipped, two spare tracks at its end (one taken by the slip); zone 1: three
  // cylinders of 8.
  Layout L;
  L.heads = 2;
  L.zones = {ZoneLayout{0, 4, 10, 0, {}, {}}, ZoneLayout{4, 3, 8, 80, {}, {}}};
  L.add_hole(0, 10, HoleKind::Front);
  L.add_hole(30, 10, HoleKind::Track);
  L.add_hole(70, 10, HoleKind::SpareTracks);
  L.add_slipped(85);
  CHECK(L.lba_of_pba(0) == 0);
  CHECK(L.pba_of_lba(0) == 10);
  CHECK(L.pba_of_lba(20) == 40);  // after the slipped track
  CHECK(L.pba_of_lba(49) == 69);
  CHECK(L.pba_of_lba(50) == 80);  // zone 1, after the spare track
  CHECK_FALSE(L.has_data(0, 0));
  CHECK_FALSE(L.has_data(1, 1));
  CHECK_FALSE(L.has_data(3, 1));
  CHECK(L.has_data(4, 0));
  CHECK_THROWS_AS(L.add_hole(35, 2, HoleKind::Sector), std::logic_error);
  DiskProfile p;
  p.heads = 2;
  p.rotation_ms = 10;
  p.layout.sparing = Sparing::TracksPerZone;
  p.zones = {ZoneSpec{0, 3, 10, {}, {}}, ZoneSpec{4, 6, 8, {}, {}}};
  p.zones[0].empty_front = 10;
  p.zones[0].slips = {3};
  p.zones[0].spares = 2;
  p.defects = {{4, 0, 5}};
  check_against_model(L, p, true);
}

TEST_CASE("the layout maps cylinders and slipped sectors like the disk model", "[extract][parts]") {
  Layout L;
  L.heads = 2;
  L.zones = {ZoneLayout{0, 3, 10, 0, {}, {}}, ZoneLayout{3, 2, 8, 60, {}, {}}};
  CHECK(L.pba(3, 0, 0) == 60);
  CHECK(L.pba(4, 1, 7) == 60 + 3 * 8 + 7);
  CHECK(L.chs(61).cylinder == 3);
  CHECK(L.chs(61).sector == 1);
  L.add_slipped(5);
  L.add_slipped(6);
  CHECK(L.lba_of_pba(4) == 4);
  CHECK(L.lba_of_pba(5) == 5);  // slipped: the LBA of the next good sector (7)
  CHECK(L.lba_of_pba(7) == 5);
  CHECK(L.pba_of_lba(5) == 7);
  CHECK(L.pba_of_lba(20) == 22);
  // Against the model with the same defects.
  DiskProfile p;
  p.heads = 2;
  p.rotation_ms = 10;
  p.zones = {ZoneSpec{0, 2, 10, {}, {}}, ZoneSpec{3, 4, 8, {}, {}}};
  p.defects = {{0, 0, 5}, {0, 0, 6}};
  check_against_model(L, p, false);
}

TEST_CASE("the period survives lost revolutions and preemptions", "[extract][parts]") {
  HostNoise n;
  n.issue_jitter_ms = 0.03;
  n.completion_jitter_ms = 0.015;
  n.preemption_rate = 0.05;  // every twentieth probe, unflagged
  n.preemption_flagged = 0.0;
  n.preemption_max_ms = 20.0;  // some cost a whole revolution
  n.rpm_error = -0.004;
  n.seed = 3;
  VirtualTarget t(load_model("hp97560-full"), n);
  Prober p(t, ProberOptions{});
  const PeriodEstimate e = p.measure_period(200);
  CHECK(std::fabs(e.period_ms / t.true_rotation_ms() - 1.0) < 1e-5);
  CHECK(e.rejected > 0);
  CHECK(e.jitter_ms < 0.05);
  // A second rotation later the phase of the reference is still 0 (mod noise).
  const double ph = p.phase(0, 5);
  CHECK(std::fabs(wrap_half(ph)) < 0.01);
}

TEST_CASE("the densest cluster of phases rejects late reads, even most of them", "[extract][parts]") {
  // Three reads on time just before the wrap, four seen late by 1-7 ms of a 15 ms turn.
  const std::vector<double> ph{0.9800, 0.0500, 0.9805, 0.1200, 0.3000, 0.9795, 0.4500};
  CHECK(std::fabs(wrap_half(circular_median(ph) - 0.98)) > 0.05);  // the median is dragged late
  CHECK(std::fabs(wrap_half(circular_mode(ph, 0.005) - 0.98)) < 1e-9);
  // Every read in one window: the mode is the median.
  const std::vector<double> tight{0.501, 0.499, 0.5005, 0.502, 0.4995};
  CHECK(circular_mode(tight, 0.01) == Approx(circular_median(tight)).margin(1e-12));
  // Two clusters of two: the earlier wins (delays only make reads later).
  CHECK(circular_mode({0.30, 0.301, 0.60, 0.601}, 0.005) == Approx(0.3005).margin(1e-12));
  // The earliest of the cluster, across the wrap, and not a read far before it.
  CHECK(wrap_half(circular_earliest(ph, 0.005) - 0.9795) == Approx(0.0).margin(1e-12));
  CHECK(circular_earliest(tight, 0.01) == Approx(0.499).margin(1e-12));
  CHECK(circular_earliest({0.9990, 0.0030, 0.0040, 0.0045, 0.2}, 0.004) == Approx(0.9990).margin(1e-12));
  CHECK(circular_earliest({0.10, 0.50, 0.501, 0.5015}, 0.004) == Approx(0.50).margin(1e-12));
}

TEST_CASE("on a busy host the period, phases and reach thresholds reject late completions",
          "[extract][parts]") {
  VirtualTarget t(load_model("hp97560-full"), testing::busy_host(5));
  Prober p(t, ProberOptions{});
  const PeriodEstimate e = p.measure_period(200);
  // Flagged probes are not repeated (each repeat would cost a revolution and be
  // flagged again), so 200 reads span about 200 revolutions.
  CHECK(e.baseline_ms < 260 * t.true_rotation_ms());
  CHECK(std::fabs(e.period_ms / t.true_rotation_ms() - 1.0) < 1e-5);
  CHECK_FALSE(p.flags_trusted());
  CHECK(p.noisy());
  CHECK(e.late_fraction == Approx(0.33).margin(0.1));
  // Sectors 1-20 of track 1 step by one sector each: every phase within a tenth of one.
  const double step = 1.0 / 72;
  const double base = p.phase(72, 9);
  for (std::uint64_t k = 1; k <= 20; ++k) {
    INFO("sector " << 72 + k);
    CHECK(std::fabs(wrap_half(p.phase(72 + k, 9) - base - k * step)) < 0.1 * step);
  }
  // Same track: dead time (overhead 2.2 ms) plus one sector; next head: plus 1.6 ms.
  const double tau = p.period() / 72;
  const std::uint64_t src = 72 * 5 + 3;
  const Millis same = p.reach_threshold(src, src + 36, p.phase(src + 36, 9), 0, p.period(), 0.005, 1);
  const Millis next = p.reach_threshold(src, src + 72 + 36, p.phase(src + 72 + 36, 9), 0, p.period(), 0.005, 1);
  CHECK(same - tau == Approx(2.2).margin(0.05));
  CHECK(next - same == Approx(1.6).margin(0.05));
}

TEST_CASE("no rotation signal is a clear error", "[extract][parts]") {
  VirtualTarget t(load_model("fixed:ms=1"), HostNoise{});
  Prober p(t, ProberOptions{});
  CHECK_THROWS_WITH(p.measure_period(50), Catch::Contains("cache"));
}

TEST_CASE("phases step one sector per sector; the scan finds boundaries and skews", "[extract][parts]") {
  VirtualTarget t(load_model("hp97560-full"), HostNoise{});
  Prober p(t, ProberOptions{});
  p.measure_period(60);
  const double a = p.phase(1000), b = p.phase(1001);
  CHECK(wrap_half(b - a) == Approx(1.0 / 72).margin(1e-9));
  const TrackScan s = scan_tracks(p, 100, 0.0, 2);
  CHECK(s.exact);
  CHECK(s.spt == 72);
  REQUIRE(s.boundaries.size() >= 2);
  CHECK(s.boundaries[0] == 144);
  CHECK(s.boundaries[1] == 216);
  CHECK(s.skews[0] == Approx(8.0).margin(1e-6));
  // The boundary between cylinders 0 and 1 (track 19) has the cylinder skew.
  CHECK(measure_skew(p, 19 * 72, 1.0 / 72) == Approx(18.0).margin(1e-6));
}

TEST_CASE("reach thresholds measure the head switch exactly", "[extract][parts]") {
  VirtualTarget t(load_model("hp97560-full"), HostNoise{});
  Prober p(t, ProberOptions{});
  p.measure_period(60);
  const double tau = p.period() / 72;
  // Same track: dead time (overhead 2.2 ms) plus one sector; next head: plus 1.6 ms.
  const std::uint64_t src = 72 * 5 + 3;
  const Millis same = p.reach_threshold(src, src + 36, p.phase(src + 36), 0, p.period(), 0.001, 1);
  const Millis next = p.reach_threshold(src, src + 72 + 36, p.phase(src + 72 + 36), 0, p.period(), 0.001, 1);
  CHECK(same - tau == Approx(2.2).margin(0.002));
  CHECK(next - same == Approx(1.6).margin(0.002));
}

TEST_CASE("profile comparison flags each quantity outside its tolerance", "[extract][parts]") {
  const DiskProfile truth = hp97560_full_profile();
  CHECK(compare_profiles(truth, truth).pass);
  DiskProfile p = truth;
  p.rotation_ms *= 1.002;
  CHECK_FALSE(compare_profiles(p, truth).pass);
  p = truth;
  p.track_skew_sectors += 1.5;
  CHECK_FALSE(compare_profiles(p, truth).pass);
  p = truth;
  p.track_skew_sectors += 0.5;
  CHECK(compare_profiles(p, truth).pass);
  p = truth;
  p.head_switch_ms += 0.15;
  CHECK_FALSE(compare_profiles(p, truth).pass);
  p = truth;
  p.zones[0].last_cylinder -= 1;
  CHECK_FALSE(compare_profiles(p, truth).zones_equal);
  p = truth;
  p.seek.long_a += 0.5;
  const Comparison c = compare_profiles(p, truth);
  CHECK(c.seek_rms > 0.3);
  CHECK_FALSE(c.pass);
}

TEST_CASE("the live rotation estimator refines the period and the phase from completions",
          "[extract][parts]") {
  // A platter 0.2 % faster than the profile says, completions with 20 us jitter and
  // every 25th one late by up to 3 ms (a busy host).
  const Millis nominal = 60000.0 / 4002.0, truth = nominal / 1.002;
  const double phase0 = 0.3;
  RotationEstimator est({.nominal_period_ms = nominal, .window = 256, .min_baseline_ms = 2000.0});
  std::mt19937_64 rng(9);
  std::normal_distribution<double> jitter(0.0, 0.02);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Millis t = 100.0;
  for (int i = 0; i < 2000; ++i) {
    t += 5.0 + 20.0 * u(rng);
    const double angle = t / truth + phase0;  // where the platter really was
    Millis seen = t + jitter(rng);
    if (i % 25 == 0) seen += 3.0 * u(rng);
    est.add(seen, angle);
  }
  CHECK(est.period_refined());
  CHECK(std::fabs(est.period_ms() / truth - 1.0) < 2e-5);
  CHECK(std::fabs(wrap_half(est.angle_at(t) - wrap_unit(t / truth + phase0))) < 0.005);
  CHECK(est.outliers() > 0);
}

TEST_CASE("the live rotation estimator keeps the nominal period over a short baseline", "[extract][parts]") {
  const Millis nominal = 8.0;
  RotationEstimator est({.nominal_period_ms = nominal, .window = 64, .min_baseline_ms = 2000.0});
  for (int i = 0; i < 20; ++i) est.add(10.0 * i, 0.25 + 10.0 * i / nominal);
  CHECK_FALSE(est.period_refined());
  CHECK(est.period_ms() == Approx(nominal));
  CHECK(est.phase() == Approx(0.25).margin(1e-9));
  CHECK_THROWS(RotationEstimator({.nominal_period_ms = 0.0}));
}

TEST_CASE("the live rotation estimator unwraps across idle gaps only when it can",
          "[extract][parts]") {
  // Bursts of observations 10 to 30 ms apart, then 4 to 8 s of silence: a 0.2 % error
  // turns such a gap into 0.5 to 1 rotation. After a first burst too short to fit a
  // period the gap cannot be unwrapped (a new segment starts); once a fit is trusted,
  // every later gap is bridged.
  const Millis nominal = 60000.0 / 4002.0, truth = nominal * 1.002;
  RotationEstimator est({.nominal_period_ms = nominal});
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Millis t = 50.0;
  for (int burst = 0; burst < 30; ++burst) {
    for (int i = 0; i < (burst == 0 ? 8 : 60); ++i) {
      t += 10.0 + 20.0 * u(rng);
      est.add(t + 0.01 * u(rng), t / truth + 0.7);
    }
    if (burst == 0) CHECK_FALSE(est.period_refined());
    if (burst == 1) {
      CHECK(est.segments_started() == 1);
      CHECK(est.period_refined());
      CHECK(std::fabs(est.period_ms() / truth - 1.0) < 2e-5);
    }
    t += 4000.0 + 4000.0 * u(rng);
  }
  CHECK(std::fabs(est.period_ms() / truth - 1.0) < 2e-6);
  CHECK(est.segments_started() == 1);
  CHECK(est.fits_out_of_bounds() == 0);
  CHECK(std::fabs(wrap_half(est.angle_at(t) - wrap_unit(t / truth + 0.7))) < 0.002);
}

TEST_CASE("the live rotation estimator rejects bad options", "[extract][parts]") {
  CHECK_THROWS(RotationEstimator({.nominal_period_ms = 10.0, .reject_rotations = 0.0}));
  CHECK_THROWS(RotationEstimator({.nominal_period_ms = 10.0, .max_relative_change = 0.7}));
}

TEST_CASE("a block target writes back the bytes it read, with FUA and without", "[extract][parts]") {
  // A regular file in the working directory (O_DIRECT: not a tmpfs).
  const std::string path = "extract-block-target-" + std::to_string(::getpid()) + ".img";
  std::string bytes(1 << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 % 251);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  {
    BlockTarget t(path, std::pair<std::uint64_t, std::uint64_t>{65536, 65536});
    REQUIRE(t.sectors() == (1u << 20) / t.sector_bytes());
    const std::uint64_t first = 65536 / t.sector_bytes();
    const ProbeResult w = t.write(first + 1, 1);
    CHECK(w.complete_ms >= w.issue_ms);
    const std::optional<ProbeResult> b = t.write_buffered(first + 2, 1);
    REQUIRE(b.has_value());
    CHECK(b->complete_ms >= b->issue_ms);
    CHECK_THROWS(t.write_buffered(0, 1));  // outside the writable range
    BlockTarget read_only(path);
    CHECK_FALSE(read_only.write_buffered(first, 1).has_value());
  }
  std::ifstream in(path, std::ios::binary);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(path.c_str());
  CHECK(after == bytes);
}

TEST_CASE("a step's progress line says the time the step starts at, not the last update's",
          "[extract][parts]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    Progress p(f, {"period", "zones"});
    p.step("period", 0.0, 300000.0);
    p.update(0.5, 2000.0, 300000.0);
    // The period step ran on for a while after its last update.
    p.step("zones", 75000.0, 300000.0);
    p.finish();
  }
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text.push_back(static_cast<char>(c));
  std::fclose(f);
  CHECK(text.find("[2/2] zones (elapsed 1:15, budget left 3:45)") != std::string::npos);
}
