// The cache defeat against a buffer of many segments: `sata7200-8tb` as shipped (128
// segments of 4096 sectors, read-ahead 4096 sectors), in virtual time. Pushing a sector
// out by reading as many other places as the buffer has segments costs 128 reads a
// probe; what the defeat does about it is checked here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "predictor/disk_model.hpp"
#include "tools/extract/cache_check.hpp"
#include "tools/extract/cache_defeat.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/geometry_probe.hpp"
#include "tools/extract/prober.hpp"
#include "tools/extract/virtual_target.hpp"

using namespace disksched;
using namespace disksched::extract;

namespace {

// Counts the reads that reach the target, in the order they come.
class Recording final : public ProbeTarget {
 public:
  explicit Recording(ProbeTarget& inner) : inner_(inner) {}
  std::string describe() const override { return inner_.describe(); }
  std::uint32_t sector_bytes() const override { return inner_.sector_bytes(); }
  std::uint64_t sectors() const override { return inner_.sectors(); }
  Millis now_ms() override { return inner_.now_ms(); }
  void wait_until(Millis t) override { inner_.wait_until(t); }
  ProbeResult read(std::uint64_t lba, std::uint32_t count) override {
    lbas.push_back(lba);
    return inner_.read(lba, count);
  }
  ProbeResult write(std::uint64_t lba, std::uint32_t count) override { return inner_.write(lba, count); }
  bool prefers_descending_reads() const override { return true; }
  std::vector<std::uint64_t> lbas;

 private:
  ProbeTarget& inner_;
};

}  // namespace

TEST_CASE("behind 128 segments a held sector is pushed out by as many reads as segments are newer than its own",
          "[extract][cache]") {
  VirtualTarget t(load_model("sata7200-8tb"), HostNoise{});
  const CacheFindings f = check_cache(t);
  REQUIRE(f.read_cache);
  REQUIRE(f.evicting_reads == 128);
  CacheDefeat d(t, f);
  const std::uint64_t x = 1'000'000'000;
  d.read(x, 1);  // the first read first sweeps out what the check left: 128 reads
  CHECK(d.evictions() == 128);
  const std::uint64_t hits = t.hits();
  for (std::uint64_t k = 1; k <= 64; ++k) d.read(x + k * 100'000, 1);  // out of every window
  CHECK(d.evictions() == 128);
  // x's segment has 64 newer ones: 64 more reads of other places push it out (128 did).
  d.read(x, 1);
  CHECK(d.evictions() == 128 + 64);
  // Read just now: all 128.
  d.read(x, 1);
  CHECK(d.evictions() == 128 + 64 + 128);
  CHECK(t.hits() == hits);  // every read, evicting or not, reached the platter
}

TEST_CASE("behind 128 segments the evicting reads go on in fresh space and come round soon", "[extract][cache]") {
  // Re-reads of one sector, each behind 128 evicting reads. Each chain of them runs into
  // the windows of the chain before; placed then at places a window from the re-read
  // (anywhere on the track), they took 3-4 ms each, 2.3 on the whole extraction; carried
  // on past those windows, at the learned distances, about 2 (3.1 before, here).
  VirtualTarget t(load_model("sata7200-8tb"), HostNoise{});
  const CacheFindings f = check_cache(t);
  REQUIRE(f.evicting_reads == 128);
  CacheDefeat d(t, f);
  const std::uint64_t x = 2'000'000'000;
  d.read(x, 1);
  const std::uint64_t hits = t.hits();
  const std::uint64_t e0 = d.evictions();
  const Millis t0 = t.now_ms();
  for (int i = 0; i < 40; ++i) d.read(x, 1);
  const double per_read = (t.now_ms() - t0) / static_cast<double>(d.evictions() - e0);
  INFO(per_read << " ms an evicting read");
  CHECK(d.evictions() - e0 == 40 * 128);
  CHECK(per_read < 2.5);
  CHECK(t.hits() == hits);
}

TEST_CASE("track boundaries are walked from the last down where read-ahead carries forward", "[extract][cache]") {
  VirtualTarget t(load_model("sata7200-8tb-nocache"), HostNoise{});
  Recording r(t);
  Prober p(r, ProberOptions{});
  p.measure_period(40);
  const std::size_t before = r.lbas.size();
  const auto walk = walk_boundaries(p, 0, 3656, 1.0 / 3656, 8);
  REQUIRE(walk.size() == 8);
  for (std::size_t i = 0; i < walk.size(); ++i) CHECK(walk[i].lba == (i + 1) * 3656);
  // Every read below all the walk's reads before it (the reference aside): none within
  // the read-ahead of one before.
  std::uint64_t lowest = UINT64_MAX;
  int above = 0;
  for (std::size_t i = before; i < r.lbas.size(); ++i) {
    if (r.lbas[i] == p.reference_lba()) continue;  // the frame's refreshes
    above += r.lbas[i] > lowest;
    lowest = std::min(lowest, r.lbas[i]);
  }
  CHECK(above == 0);
}

TEST_CASE("sata7200-8tb through its 128-segment cache ends near the default budget with its heads and most zones",
          "[extract][cache]") {
  // Before: 835 s of the drive's time for a 570 s budget, zones measured to 0 % of the
  // device (each probe of a held place paid 128 reads at 3-4 ms).
  VirtualTarget t(load_model("sata7200-8tb"), HostNoise{});
  ExtractOptions o;
  o.budget_ms = 570'000.0;  // the CLI's default
  const ExtractResult r = extract_geometry(t, o);
  INFO(r.elapsed_ms / 1000.0 << " s, " << r.cache_evictions << " evicting reads");
  CHECK(r.layout.heads == 12);
  // The zones step ends at its share; the seek step then still samples its nine
  // distances at 128 evicting reads a probe (90 s past a spent budget once the heads
  // step measured more): the run fails its check, in about 650 s, not 835.
  CHECK(r.elapsed_ms < 1.2 * o.budget_ms);
  CHECK(r.layout.zones.size() >= 8);
}

TEST_CASE("behind a busy host the 8 TB drive's cache ends the run at its hard limit, naming the cache",
          "[extract][cache]") {
  // Before: 5157 s of the drive's time for a 570 s budget (the heads step alone 72
  // minutes, each probe paying up to 128 evicting reads).
  VirtualTarget t(load_model("sata7200-8tb"), *noise_preset("busy", 1));
  ExtractOptions o;
  o.budget_ms = 570'000.0;
  o.seed = 1;
  try {
    extract_geometry(t, o);
    FAIL("the extraction finished");
  } catch (const TimingNoiseError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("hard limit, 1170 s") != std::string::npos);
    CHECK(what.find("sdparm --set=RCD") != std::string::npos);
  }
  // Stopped before the probe that would pass the limit; one probe's evicting reads at most past it.
  CHECK(t.now_ms() < 1170'000.0 + 5'000.0);
}
