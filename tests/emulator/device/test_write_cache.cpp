// The volatile write cache (write-cache=), served in virtual time, exactly: writes
// acknowledged from the buffer, destage shortest positioning first when idle, a full
// cache makes writes wait, the high-water mark, FLUSH, FUA, and a power cut that loses
// exactly the acknowledged writes not yet on the media.
//
// The disk: 10 cylinders x 2 heads x 100 sectors, 10 ms a rotation (a sector is 0.1 ms),
// phase 0, a seek of any distance 1 ms, no overheads: LBA 0 is under the head at time 0.
// LBA = cylinder * 200 + head * 100 + sector; a sector's angle is sector / 100.
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "emulator/device/virtual_device.hpp"
#include "predictor/disk_model.hpp"
#include "tests/emulator/device/small_disk.hpp"

using namespace disksched;
using Catch::Matchers::WithinAbs;
using testing::kEps, testing::kSector;

namespace {

DiskProfile small_disk() { return testing::small_disk("write-cache-test"); }

// The small disk with a profile cache that takes writes behind (DiskSim's rules): two
// read segments, one write segment, no bus or controller time.
DiskProfile write_behind_disk() {
  DiskProfile p = small_disk();
  p.drive.has_cache = true;
  p.drive.cache.segments = 2;
  p.drive.cache.segment_sectors = 200;
  p.drive.cache.write_segments = 1;
  p.drive.cache.fast_write = 2;
  return p;
}

using Lbas = std::vector<std::uint64_t>;

// The first LBA of each extent a command (or a power cut) destaged, in the order it
// destaged them.
template <class WithDestaged>
Lbas destaged_lbas(const WithDestaged& s) {
  Lbas out;
  for (const auto& d : s.destaged) out.push_back(d.extent.lba);
  return out;
}

VirtualDevice cached(std::uint64_t sectors, double high_water = 1.0) {
  DeviceOptions o;
  o.write_cache = WriteCacheOptions{sectors * kSector, high_water};
  return VirtualDevice(std::make_unique<DiskModel>(small_disk()), o);
}

// Three one-sector writes: A at cylinder 2 angle 0.5, B at cylinder 5 angle 0.2, C at
// cylinder 8 angle 0.15. In arrival order A, B, C; by shortest positioning from cylinder
// 0 at time 0: C (seek to 1.0, angle 0.15 at 1.5, on the media at 1.6), then A (seek to
// 2.6, angle 0.5 at 5.0, 5.1), then B (seek to 6.1, angle 0.2 at 12.0, 12.1).
constexpr std::uint64_t kA = 2 * 200 + 100 + 50, kB = 5 * 200 + 20, kC = 8 * 200 + 100 + 15;

void write(VirtualDevice& d, Millis t, std::uint64_t lba, std::uint64_t n = 1, bool fua = false) {
  d.serve(t, Op::Write, lba * kSector, static_cast<std::uint32_t>(n * kSector), fua);
}

}  // namespace

TEST_CASE("a cached write completes from the buffer and is destaged when the drive is idle",
          "[write-cache]") {
  VirtualDevice d = cached(64);
  const Service w = d.serve(0.0, Op::Write, 500 * kSector, 10 * kSector);
  CHECK(w.hit);
  CHECK(w.completion_ms == 0.0);
  CHECK(d.write_cache()->dirty_sectors() == 10);
  // Idle from 0: seek to cylinder 2 (1.0), angle 0 at 10.0, ten sectors by 11.0. The read
  // arriving at 50 finds it done.
  const Service r = d.serve(50.0, Op::Read, 0, kSector);
  REQUIRE(r.destaged.size() == 1);
  CHECK(r.destaged[0].extent == Extent{500, 10});
  CHECK_THAT(r.destaged[0].media_ms, WithinAbs(11.0, kEps));
  CHECK(d.write_cache()->empty());
  CHECK(r.start_ms == 50.0);
}

TEST_CASE("FLUSH destages shortest positioning first and completes when all is on the media",
          "[write-cache]") {
  VirtualDevice d = cached(64);
  write(d, 0.0, kA);
  write(d, 0.0, kB);
  write(d, 0.0, kC);
  CHECK(d.write_cache()->dirty_sectors() == 3);
  const Service f = d.serve(0.0, Op::Flush, 0, 0);
  REQUIRE(destaged_lbas(f) == Lbas{kC, kA, kB});
  CHECK_THAT(f.destaged[0].media_ms, WithinAbs(1.6, kEps));
  CHECK_THAT(f.destaged[1].media_ms, WithinAbs(5.1, kEps));
  CHECK_THAT(f.destaged[2].media_ms, WithinAbs(12.1, kEps));
  CHECK_THAT(f.completion_ms, WithinAbs(12.1, kEps));
  CHECK(d.write_cache()->empty());
  // Non-queued: the command behind the flush starts when it has completed.
  const Service r = d.serve(1.0, Op::Read, 0, kSector);
  CHECK_THAT(r.start_ms, WithinAbs(12.1, kEps));
  // An empty cache's flush costs what the media's flush costs.
  CHECK(d.serve(100.0, Op::Flush, 0, 0).destaged.empty());
}

TEST_CASE("a full cache makes a write wait for the destage of another", "[write-cache]") {
  VirtualDevice d = cached(2);
  write(d, 0.0, kA);
  write(d, 0.0, kB);
  const Service w = d.serve(0.0, Op::Write, kC * kSector, kSector);
  // No room: the shortest of A and B from cylinder 0 is B (positioning 2.0 vs 5.0).
  REQUIRE(destaged_lbas(w) == Lbas{kB});
  CHECK_THAT(w.destaged[0].media_ms, WithinAbs(2.1, kEps));
  CHECK_THAT(w.start_ms, WithinAbs(2.1, kEps));
  CHECK(w.hit);
  CHECK(d.write_cache()->dirty_sectors() == 2);
}

TEST_CASE("above the high-water mark the cache drains below it before the next command",
          "[write-cache]") {
  VirtualDevice d = cached(4, 0.5);  // the mark: 2 sectors
  write(d, 0.0, kA);
  write(d, 0.0, kB);
  const Service w = d.serve(0.0, Op::Write, kC * kSector, kSector);  // at the mark: taken
  CHECK(w.destaged.empty());
  CHECK(d.write_cache()->dirty_sectors() == 3);
  const Service r = d.serve(0.0, Op::Read, 0, kSector);  // 3 > 2: one destage first (C)
  REQUIRE(destaged_lbas(r) == Lbas{kC});
  CHECK_THAT(r.start_ms, WithinAbs(1.6, kEps));
}

TEST_CASE("above the high-water mark a write the buffer could take waits for the drain too",
          "[write-cache]") {
  VirtualDevice d = cached(8, 0.25);  // the mark: 2 sectors, room for 8
  write(d, 0.0, kA);
  write(d, 0.0, kB);
  write(d, 0.0, kC);  // at 3 > 2: C drains first (on the media at 1.6), then it is taken
  const Service w = d.serve(0.0, Op::Write, 7 * kSector, kSector);
  REQUIRE(w.destaged.size() == 1);
  CHECK(w.hit);
  CHECK(w.destaged[0].extent.lba == kC);
  CHECK_THAT(w.start_ms, WithinAbs(1.6, kEps));
}

TEST_CASE("a FUA write reaches the media before it completes and supersedes dirty sectors",
          "[write-cache]") {
  VirtualDevice d = cached(64);
  write(d, 0.0, 500, 10);
  // Sectors 500..504 again with FUA: from cylinder 0 at 0, on the media at 10.5.
  const Service f = d.serve(0.0, Op::Write, 500 * kSector, 5 * kSector, /*fua=*/true);
  CHECK_FALSE(f.hit);
  CHECK_THAT(f.completion_ms, WithinAbs(10.5, kEps));
  REQUIRE(d.write_cache()->entries().size() == 1);
  CHECK(d.write_cache()->entries()[0].extent == Extent{505, 5});
}

TEST_CASE("a newer cached write takes its sectors from an older dirty extent", "[write-cache]") {
  VirtualDevice d = cached(64);
  write(d, 0.0, 500, 10);
  write(d, 0.0, 503, 2);
  const auto& e = d.write_cache()->entries();
  REQUIRE(e.size() == 3);
  CHECK(e[0].extent == Extent{500, 3});
  CHECK(e[1].extent == Extent{505, 5});
  CHECK(e[2].extent == Extent{503, 2});
  CHECK(d.write_cache()->dirty_sectors() == 10);
}

TEST_CASE("a read of sectors all in the write cache is a hit", "[write-cache]") {
  VirtualDevice d = cached(64);
  write(d, 0.0, 500, 10);
  const Service r = d.serve(0.0, Op::Read, 502 * kSector, 4 * kSector);
  CHECK(r.hit);
  CHECK(r.completion_ms == 0.0);
  CHECK_FALSE(d.serve(0.0, Op::Read, 505 * kSector, 10 * kSector).hit);
}

TEST_CASE("a power cut loses what is not on the media, and only that", "[write-cache]") {
  VirtualDevice d = cached(64);
  write(d, 0.0, kA);
  write(d, 0.0, kB);
  write(d, 0.0, kC);
  // At 3.0 only C (on the media at 1.6) made it; A would be there at 5.1.
  const VirtualDevice::PowerCut cut = d.power_cut(3.0);
  REQUIRE(destaged_lbas(cut) == Lbas{kC});
  CHECK(cut.lost == std::vector<Extent>{{kA, 1}, {kB, 1}});
  CHECK(d.write_cache()->empty());
  // It serves on: a write after the cut is cached again.
  CHECK(d.serve(3.0, Op::Write, kA * kSector, kSector).hit);
}

TEST_CASE("a power cut never loses a flushed or FUA write (random writes, flushes, cuts)",
          "[write-cache]") {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 50; ++round) {
    VirtualDevice d = cached(1 + rng() % 40, (rng() % 5) / 4.0);
    std::map<std::uint64_t, bool> durable;  // sector -> its newest data must survive
    std::set<std::uint64_t> on_media;       // sectors the device says it wrote
    auto note = [&](const std::vector<Destage>& v) {
      for (const Destage& x : v)
        for (std::uint64_t s = x.extent.lba; s < x.extent.end(); ++s) on_media.insert(s);
    };
    Millis t = 0.0;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      t += static_cast<double>(rng() % 30) / 10.0;
      const int kind = static_cast<int>(rng() % 10);
      if (kind == 0) {
        const Service f = d.serve(t, Op::Flush, 0, 0);
        note(f.destaged);
        for (auto& [s, must] : durable) must = true;
        continue;
      }
      const std::uint64_t lba = rng() % 1990, len = 1 + rng() % 10;
      const bool fua = kind == 1;
      const Service w = d.serve(t, Op::Write, lba * kSector, static_cast<std::uint32_t>(len * kSector), fua);
      note(w.destaged);
      for (std::uint64_t s = lba; s < lba + len; ++s) {
        durable[s] = fua || !w.hit;  // through to the media, or only acknowledged
        on_media.erase(s);           // its newest data is not on the media yet, unless ...
        if (durable[s]) on_media.insert(s);
      }
      t = std::max(t, w.completion_ms);
    }
    // Half the rounds with a seeded cut: the drive wrote a seeded part of what was left.
    std::optional<std::uint64_t> seed;
    if (round % 2 == 1) seed = rng();
    const VirtualDevice::PowerCut cut = d.power_cut(t + static_cast<double>(rng() % 20), seed);
    note(cut.destaged);
    std::set<std::uint64_t> lost;
    for (const Extent& e : cut.lost)
      for (std::uint64_t s = e.lba; s < e.end(); ++s) lost.insert(s);
    for (const auto& [s, must] : durable) {
      INFO("round " << round << " sector " << s);
      if (must) CHECK_FALSE(lost.count(s));
      // Every acknowledged write is either on the media or reported lost, never both.
      CHECK(on_media.count(s) + lost.count(s) == 1);
    }
    CHECK(d.write_cache()->empty());
  }
}

TEST_CASE("write-cache=0 is write-through even where the profile has write-behind",
          "[write-cache]") {
  const DiskProfile p = write_behind_disk();
  DeviceOptions through;
  through.write_cache = WriteCacheOptions{0, 0.75};
  VirtualDevice d(std::make_unique<DiskModel>(p), through);
  CHECK(d.write_cache() == nullptr);
  CHECK_THAT(d.serve(0.0, Op::Write, 500 * kSector, 10 * kSector).completion_ms, WithinAbs(11.0, kEps));
  // Without the key, the profile's write-behind acknowledges at once, as before.
  VirtualDevice behind(std::make_unique<DiskModel>(p));
  CHECK(behind.serve(0.0, Op::Write, 500 * kSector, 10 * kSector).completion_ms < 1.0);
}

TEST_CASE("a write cache smaller than a sector is refused with the size it needs",
          "[write-cache]") {
  DeviceOptions o;
  o.write_cache = WriteCacheOptions{100, 0.75};
  CHECK_THROWS_WITH(VirtualDevice(std::make_unique<DiskModel>(small_disk()), o),
                    Catch::Contains("write-cache=100: smaller than one sector (512 bytes)"));
}

TEST_CASE("a write taken into the buffer does not wait for the destage under way; a miss does",
          "[write-cache]") {
  VirtualDevice d = cached(64);
  write(d, 0.0, 500, 10);  // its destage runs 0 .. 11.0
  const Service w = d.serve(5.0, Op::Write, 1000 * kSector, kSector);
  CHECK(w.start_ms == 5.0);
  CHECK(w.completion_ms == 5.0);
  REQUIRE(w.destaged.size() == 1);  // begun before 5.0, so it goes on to its end
  CHECK_THAT(w.destaged[0].media_ms, WithinAbs(11.0, kEps));
  CHECK_THAT(d.head().time_ms, WithinAbs(11.0, kEps));
  // A read miss needs the mechanism: it waits for the destage under way, then goes before
  // the next one (the idle destage of sector 1000 does not start while it waits).
  const Service r = d.serve(6.0, Op::Read, 0, kSector);
  CHECK_FALSE(r.hit);
  CHECK_THAT(r.start_ms, WithinAbs(11.0, kEps));
  CHECK(d.write_cache()->dirty_sectors() == 1);
}

namespace {

std::set<std::uint64_t> lbas(const std::vector<Destage>& v) {
  std::set<std::uint64_t> out;
  for (const Destage& d : v) out.insert(d.extent.lba);
  return out;
}

}  // namespace

TEST_CASE("a profile's write-behind is the write buffer: a cut loses its unwritten runs, "
          "never a flushed write", "[write-cache]") {
  VirtualDevice d(std::make_unique<DiskModel>(write_behind_disk()));
  REQUIRE(d.write_cache() != nullptr);
  CHECK(d.write_cache()->policy() == DestagePolicy::ProfileWriteBehind);
  // Acknowledged at once; its run: seek to cylinder 2 (1.0), angle 0 at 10.0, 11.0.
  const Service w = d.serve(0.0, Op::Write, 500 * kSector, 10 * kSector);
  CHECK(w.buffered);
  REQUIRE(d.write_cache()->entries().size() == 1);
  CHECK_THAT(d.write_cache()->entries()[0].on_media_ms, WithinAbs(11.0, kEps));
  // FLUSH completes when the run is on the media, and the buffer is empty then.
  const Service f = d.serve(w.completion_ms, Op::Flush, 0, 0);
  REQUIRE(f.destaged.size() == 1);
  CHECK(f.destaged[0].extent == Extent{500, 10});
  CHECK_THAT(f.destaged[0].media_ms, WithinAbs(11.0, kEps));
  CHECK_THAT(f.completion_ms, WithinAbs(11.0, kEps));
  CHECK(d.write_cache()->empty());
  // A write acknowledged after the flush, cut before its run is done: lost, only it.
  const Service w2 = d.serve(f.completion_ms, Op::Write, kA * kSector, kSector);
  CHECK(w2.buffered);
  const VirtualDevice::PowerCut cut = d.power_cut(w2.completion_ms);
  CHECK(cut.destaged.empty());
  CHECK(cut.lost == std::vector<Extent>{{kA, 1}});
  CHECK(d.write_cache()->empty());
  // It serves on; a run done before the next cut reached the media.
  const Service w3 = d.serve(20.0, Op::Write, kB * kSector, kSector);
  CHECK(w3.buffered);
  const Millis on_media = d.write_cache()->entries().at(0).on_media_ms;
  const VirtualDevice::PowerCut cut2 = d.power_cut(on_media + 1.0);
  CHECK(lbas(cut2.destaged) == std::set<std::uint64_t>{kB});
  CHECK(cut2.lost.empty());
}

TEST_CASE("a FUA write through a profile's write-behind is never in the buffer",
          "[write-cache]") {
  VirtualDevice d(std::make_unique<DiskModel>(write_behind_disk()));
  const Service f = d.serve(0.0, Op::Write, 500 * kSector, 10 * kSector, /*fua=*/true);
  CHECK_FALSE(f.buffered);
  CHECK(d.write_cache()->empty());
  CHECK(d.power_cut(f.completion_ms).lost.empty());
}

TEST_CASE("a seeded cut keeps a seeded part of the buffer: one seed repeats, two differ",
          "[write-cache]") {
  // One flushed write, then 20 cached one-sector writes the cut finds all in the buffer.
  auto cut_with = [](std::optional<std::uint64_t> seed) {
    VirtualDevice d = cached(64);
    write(d, 0.0, 0);
    const Millis t = d.serve(0.0, Op::Flush, 0, 0).completion_ms;
    for (std::uint64_t i = 1; i <= 20; ++i) write(d, t, i * 90);
    return d.power_cut(t, seed);
  };
  auto kept = [](const VirtualDevice::PowerCut& c) { return lbas(c.destaged); };
  std::set<std::uint64_t> all;
  for (std::uint64_t i = 1; i <= 20; ++i) all.insert(i * 90);

  // Without a seed the destage order alone decides: nothing had started, all is lost.
  const VirtualDevice::PowerCut none = cut_with(std::nullopt);
  CHECK(none.destaged.empty());
  CHECK(none.lost.size() == 20);

  const VirtualDevice::PowerCut a = cut_with(1), again = cut_with(1), b = cut_with(2);
  CHECK(kept(a) == kept(again));
  CHECK(a.lost == again.lost);
  CHECK(kept(a) != kept(b));
  std::size_t survivors = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const VirtualDevice::PowerCut c = cut_with(seed);
    std::set<std::uint64_t> seen = kept(c);
    CHECK(seen.size() == c.destaged.size());
    for (const Extent& e : c.lost) {
      CHECK(e.lba != 0);  // the flushed write is on the media, never lost
      CHECK(seen.insert(e.lba).second);  // kept or lost, never both
    }
    CHECK(seen == all);
    survivors += c.destaged.size();
  }
  CHECK(survivors > 0);
  CHECK(survivors < 20 * 20);
}

TEST_CASE("an idle destage never starts before its write came in", "[write-cache]") {
  VirtualDevice d = cached(64);
  write(d, 0.0, 500, 10);
  CHECK_THAT(d.serve(0.0, Op::Flush, 0, 0).completion_ms, WithinAbs(11.0, kEps));
  // Idle from 11.0 to 100.0 with nothing to write; then two writes at 100.0. Nothing can
  // have been destaged before they came (a destage from 11.0 would have had A on the
  // media at 15.1), so a cut at 100.0 loses both.
  write(d, 100.0, kA);
  const Service w = d.serve(100.0, Op::Write, kB * kSector, kSector);
  CHECK(w.destaged.empty());
  const VirtualDevice::PowerCut cut = d.power_cut(100.0);
  CHECK(cut.destaged.empty());
  CHECK(cut.lost == std::vector<Extent>{{kA, 1}, {kB, 1}});
  // Idle again from 100.0: a read at 200.0 finds A destaged from 100.0 (seek to 101.0,
  // angle 0.5 at 105.0, 105.1).
  write(d, 100.0, kA);
  const Service r = d.serve(200.0, Op::Read, 0, kSector);
  REQUIRE(r.destaged.size() == 1);
  CHECK_THAT(r.destaged[0].start_ms, WithinAbs(100.0, kEps));
  CHECK_THAT(r.destaged[0].media_ms, WithinAbs(105.1, kEps));
}

namespace {

// The small disk with a drive of today's write buffer in its profile: two read segments
// (DiskSim's write-behind would hold two scattered writes), a buffer of 64 sectors.
VirtualDevice with_write_buffer(unsigned window) {
  DiskProfile p = small_disk();
  p.drive.has_cache = true;
  p.drive.cache.segments = 2;
  p.drive.cache.segment_sectors = 32;
  p.drive.cache.write_buffer_bytes = 64 * kSector;
  p.drive.cache.write_buffer_high_water = 1.0;
  p.drive.cache.write_buffer_window = window;
  return VirtualDevice(std::make_unique<DiskModel>(p));
}

}  // namespace

TEST_CASE("a profile's write buffer holds what its size holds and destages by positioning",
          "[write-cache]") {
  VirtualDevice d = with_write_buffer(0);
  REQUIRE(d.write_cache() != nullptr);
  CHECK(d.write_cache()->policy() == DestagePolicy::WhenIdle);
  // Three scattered writes, more than the two segments: all taken at once.
  for (const std::uint64_t lba : {kA, kB, kC}) {
    const Service w = d.serve(0.0, Op::Write, lba * kSector, kSector);
    CHECK(w.buffered);
    CHECK(w.completion_ms == 0.0);
  }
  CHECK(d.write_cache()->dirty_sectors() == 3);
  // The flush destages them shortest positioning first (C, A, B), not in arrival order.
  const Service f = d.serve(0.0, Op::Flush, 0, 0);
  REQUIRE(destaged_lbas(f) == Lbas{kC, kA, kB});
  CHECK_THAT(f.destaged[2].media_ms, WithinAbs(12.1, kEps));
}

TEST_CASE("a write buffer's window: the destage chooses among the oldest few", "[write-cache]") {
  // A window of one is arrival order: A (on the media at 5.1), B, then C.
  VirtualDevice d = with_write_buffer(1);
  for (const std::uint64_t lba : {kA, kB, kC}) d.serve(0.0, Op::Write, lba * kSector, kSector);
  const Service f = d.serve(0.0, Op::Flush, 0, 0);
  REQUIRE(destaged_lbas(f) == Lbas{kA, kB, kC});
  CHECK_THAT(f.destaged[0].media_ms, WithinAbs(5.1, kEps));
  // A window of two: B or A first (B is nearer from cylinder 0: 2.1), then the nearer of
  // A and C.
  VirtualDevice two = with_write_buffer(2);
  for (const std::uint64_t lba : {kA, kB, kC}) two.serve(0.0, Op::Write, lba * kSector, kSector);
  const Service g = two.serve(0.0, Op::Flush, 0, 0);
  REQUIRE(g.destaged.size() == 3);
  CHECK(g.destaged[0].extent.lba == kB);
}
