// The drive steps (tools/extract/drive_steps.hpp) against drives played as diskemu plays
// them (EmulatedTarget: the drive's buffer, write cache and command queue) in virtual
// time: each finds what the profile has, within the tolerances stated here.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "predictor/disk_model.hpp"
#include "tests/tools/extract/c2247a_extraction.hpp"
#include "tools/extract/compare_drive.hpp"
#include "tools/extract/drive_steps.hpp"
#include "tools/extract/tolerances.hpp"
#include "tools/extract/emulated_target.hpp"

using namespace disksched;
using namespace disksched::extract;

namespace {

const DriveParams& truth_of(const EmulatedTarget& t) {
  return dynamic_cast<const DiskModel&>(t.model()).profile().drive;
}

EmulatedTarget drive(const std::string& name, unsigned queue, std::uint64_t seed, Millis jitter_ms = 0.01) {
  DriveQueueOptions q;
  q.depth = queue;
  q.policy = queue > 1 ? "satf" : "fcfs";
  HostPath host;
  host.jitter_ms = jitter_ms;  // host noise: the thresholds must not need exact times
  host.seed = seed;
  return EmulatedTarget(load_model(name), q, host);
}

DriveStepOptions options(const EmulatedTarget& t, std::uint64_t seed) {
  DriveStepOptions o;
  o.seed = seed;
  o.budget_ms = 1e9;  // virtual time: the budget is the real-time runs' concern
  o.writable = std::pair<std::uint64_t, std::uint64_t>{0, t.sectors() - 1};
  return o;
}

}  // namespace

TEST_CASE("drive steps find a drive of today's cache, write cache and queue", "[extract][drive]") {
  const std::string name = GENERATE("sata7200-8tb", "laptop5400-320gb", "sas15k-600gb");
  const std::uint64_t seed = GENERATE(1, 2);
  // Completions seen 0.01 ms late on average, and 0.1 ms (a busy host's, as
  // tools/extract/README.md measured a real-time diskemu run's: 0.086 ms jitter).
  const Millis jitter = GENERATE(0.01, 0.1);
  CAPTURE(name, seed, jitter);
  EmulatedTarget t = drive(name, 32, seed, jitter);
  const CacheParams truth = truth_of(t).cache;
  REQUIRE(truth.write_buffer());
  const DriveFindings f = probe_drive(t, options(t, seed));

  // Read cache: read-ahead within 1 % (hits are decided by a threshold, not exact
  // times), every segment counted exactly.
  REQUIRE(f.read.measured);
  CHECK(f.read.read_cache);
  CHECK(std::fabs(static_cast<double>(f.read.read_ahead_sectors) - truth.max_read_ahead) <=
        0.01 * truth.max_read_ahead);
  CHECK(std::fabs(static_cast<double>(f.read.read_ahead_sequential_sectors) - truth.max_read_ahead) <=
        0.01 * truth.max_read_ahead);
  CHECK(f.read.segments == truth.segments);
  CHECK_FALSE(f.read.segments_at_least);

  // Write cache: found, its size (writes destaged in the background while the burst
  // runs make the jump a little late), reordered destage, idle destaging.
  REQUIRE(f.write.measured);
  CHECK(f.write.cached);
  CHECK(f.write.jump_seen);
  // On a busy host the burst is slower and more is written back while it runs than the
  // step counts: within 10 % there (extract check's tolerance), 5 % on a quiet one.
  const double size_tol = jitter > 0.05 ? 0.10 : 0.05;
  CHECK(std::fabs(static_cast<double>(f.write.buffer_bytes) - static_cast<double>(truth.write_buffer_bytes)) <=
        size_tol * static_cast<double>(truth.write_buffer_bytes));
  CHECK(f.write.reorders_destage);
  CHECK(f.write.destages_when_idle);
  CHECK(f.write.flush64_ms > f.write.flush8_ms);
  CHECK(f.write.flush8_ms > f.write.flush_empty_ms);

  // Queue: it reorders, and its depth is the 32 it holds (doubling to 64 gains nothing).
  REQUIRE(f.queue.measured);
  CHECK(f.queue.reorders);
  CHECK(f.queue.qd32_over_qd1 > 1.5);
  CHECK(f.queue.depth == 32);

  // The profile's cache block from the findings plays as the truth does on what was
  // measured.
  DiskProfile p = dynamic_cast<const DiskModel&>(t.model()).profile();
  p.drive.cache = CacheParams{};
  f.apply(p);
  CHECK(p.drive.cache.segments == truth.segments);
  CHECK(p.drive.cache.max_read_ahead == f.read.read_ahead_sectors);
  CHECK(p.drive.cache.write_buffer_bytes == f.write.buffer_bytes);
  CHECK(f.to_json()["drive_queue"]["depth"] == 32);
}

TEST_CASE("drive steps find no cache, write cache or queue on the HP 97560", "[extract][drive]") {
  EmulatedTarget t = drive("hp97560", 1, 3);
  const DriveFindings f = probe_drive(t, options(t, 3));
  REQUIRE(f.read.measured);
  CHECK_FALSE(f.read.read_cache);
  REQUIRE(f.write.measured);
  CHECK_FALSE(f.write.cached);
  REQUIRE(f.queue.measured);
  CHECK_FALSE(f.queue.reorders);
  CHECK(f.queue.depth == 1);
  CHECK(f.queue.qd32_over_qd1 < 1.1);
}

TEST_CASE("drive steps say what they could not measure", "[extract][drive]") {
  EmulatedTarget t = drive("sata7200-8tb", 32, 4);
  DriveStepOptions o = options(t, 4);
  o.writable.reset();
  const WriteCacheFindings w = probe_write_cache(t, &t, o);
  CHECK_FALSE(w.measured);
  CHECK(w.why.find("--allow-writes") != std::string::npos);
  const QueueFindings q = probe_drive_queue(t, nullptr, o);
  CHECK_FALSE(q.measured);
  CHECK(q.why.find("one command at a time") != std::string::npos);
}

TEST_CASE("drive steps find the imported HP C2247A's two segments and write-behind", "[extract][drive]") {
  DriveQueueOptions q;  // no queue of its own
  HostPath host;
  host.jitter_ms = 0.01;
  EmulatedTarget t(std::make_unique<DiskModel>(testing::c2247a_imported(true)), q, host);
  const CacheParams truth = truth_of(t).cache;
  const DriveFindings f = probe_drive(t, options(t, 5));
  REQUIRE(f.read.measured);
  CHECK(f.read.read_cache);
  CHECK(f.read.segments == truth.segments);
  CHECK(f.read.read_ahead_sectors == truth.max_read_ahead);
  REQUIRE(f.write.measured);
  CHECK(f.write.cached);
  CHECK(f.write.writes_before_jump == 1);  // one write segment: the next waits for its destage
  DiskProfile p = testing::c2247a_imported(true);
  p.drive.cache = CacheParams{};
  f.apply(p);
  CHECK(p.drive.cache.write_behind());
  CHECK(p.drive.cache.write_segments == 1);
  REQUIRE(f.queue.measured);
  CHECK_FALSE(f.queue.reorders);
}

TEST_CASE("extract check holds a drive of today to its cache, write cache and queue tolerances", "[extract][drive]") {
  EmulatedTarget t = drive("sas15k-600gb", 32, 6);
  const DiskProfile truth = dynamic_cast<const DiskModel&>(t.model()).profile();
  const DriveFindings f = probe_drive(t, options(t, 6));
  DiskProfile p = truth;
  p.drive.cache = CacheParams{};
  f.apply(p);
  p.source["drive"] = f.to_json();
  REQUIRE(auto_tolerances(truth) == "today");
  const Tolerances tol = *tolerances_named("today");
  std::vector<std::string> lines;
  CHECK(compare_drive(p, truth, 32, tol, lines));
  CHECK(lines.size() == 5);
  lines.clear();
  CHECK_FALSE(compare_drive(p, truth, 16, tol, lines));  // the emulator held 16: the depth is off
  DiskProfile fewer = p;
  fewer.drive.cache.segments -= 1;
  lines.clear();
  CHECK_FALSE(compare_drive(fewer, truth, 32, tol, lines));
  DiskProfile platter = truth;
  platter.drive = DriveParams{};
  CHECK(auto_tolerances(platter) == "hp97560");
}
