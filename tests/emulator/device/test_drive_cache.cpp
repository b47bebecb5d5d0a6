// The drive beyond the platter, served by the device in virtual time, exactly: hits and
// misses, read-ahead progress, the bus, overheads by the previous op, write-behind with
// its destage, combining, flush and FUA.
//
// The disk: 10 cylinders x 2 heads x 100 sectors, 10 ms a rotation (a sector is 0.1 ms),
// phase 0, a seek of any distance 1 ms, no head switch: LBA 0 is under the head at time 0.
#include <memory>

#include <catch2/catch.hpp>

#include "emulator/device/virtual_device.hpp"
#include "predictor/disk_model.hpp"
#include "tests/emulator/device/small_disk.hpp"

using namespace disksched;
using Catch::Matchers::WithinAbs;
using testing::kEps, testing::kSector;

namespace {

DriveParams read_ahead_drive() {
  DriveParams d = testing::read_ahead_drive();
  d.cache.read_ahead_over_requested = true;
  return d;
}

DriveParams write_behind_drive() {
  DriveParams d;
  d.has_controller = d.has_bus = d.has_cache = true;
  d.controller.command[1][0][0] = 0.2;  // write hit after read
  d.controller.command[1][0][1] = 0.2;  // ... after write
  d.controller.command[1][1][0] = 0.2;  // write miss after read
  d.controller.command[1][1][1] = 0.2;
  d.bus.write_sector = 0.01;
  d.cache.segments = 2;
  d.cache.segment_sectors = 200;
  d.cache.write_segments = 1;
  d.cache.fast_write = 2;
  return d;
}

std::unique_ptr<DeviceModel> disk_with(const DriveParams& d) {
  DiskProfile p = testing::small_disk("cache-test");
  p.drive = d;
  return std::make_unique<DiskModel>(p);
}

}  // namespace

TEST_CASE("drive blocks of zeros cost what the platter alone costs", "[drive]") {
  DriveParams zeros;
  zeros.has_controller = zeros.has_bus = zeros.has_cache = true;
  VirtualDevice drive(disk_with(zeros));
  VirtualDevice platter(std::make_unique<DiskModel>(testing::small_disk("cache-test")));
  REQUIRE(drive.drive() != nullptr);
  REQUIRE(platter.drive() == nullptr);
  const struct { Millis at; Op op; std::uint64_t lba; std::uint32_t n; } reqs[] = {
      {0.0, Op::Read, 0, 10}, {0.5, Op::Read, 1234, 40}, {3.0, Op::Write, 77, 150},
      {90.0, Op::Read, 1900, 99}, {91.0, Op::Write, 0, 1}};
  for (const auto& r : reqs) {
    const Service a = drive.serve(r.at, r.op, r.lba * kSector, r.n * kSector);
    const Service b = platter.serve(r.at, r.op, r.lba * kSector, r.n * kSector);
    CHECK_THAT(a.completion_ms, WithinAbs(b.completion_ms, kEps));
    CHECK(a.cost.end.cylinder == b.cost.end.cylinder);
    CHECK(a.cost.end.head == b.cost.end.head);
    CHECK_FALSE(a.hit);
  }
}

TEST_CASE("a read issued d ms after a miss hits exactly the sectors read ahead by then",
          "[drive]") {
  // The miss reads [0, 10) from 0 to 1.0 ms; read-ahead goes on at 0.1 ms a sector to 60.
  for (const Millis d : {0.05, 0.55, 1.25, 4.95}) {
    VirtualDevice dev(disk_with(read_ahead_drive()));
    const Service miss = dev.serve(0.0, Op::Read, 0, 10 * kSector);
    CHECK_FALSE(miss.hit);
    CHECK_THAT(miss.completion_ms, WithinAbs(1.0, kEps));
    const Millis t = 1.0 + d;
    const auto reached = static_cast<std::uint32_t>(d / 0.1);
    CHECK(dev.drive()->holds(t, 10, reached));
    CHECK_FALSE(dev.drive()->holds(t, 10, reached + 1));
    const Service next = dev.serve(t, Op::Read, 10 * kSector, 20 * kSector);
    CHECK(next.hit);
    // Hit overhead, then the rest at the media rate: sector 29 is read at 3.0 ms.
    CHECK_THAT(next.completion_ms, WithinAbs(std::max(t + 0.5, 3.0), kEps));
  }
}

TEST_CASE("a read the read-ahead has not reached waits for it only as read_ahead_wait says",
          "[drive]") {
  // A miss costs 0.3 ms of command and waits for its first sector to come round (sector s
  // passes at s / 10 ms past each 10 ms revolution); a hit costs 0.5 ms and waits for its
  // sectors. The miss at 9.7 reads [0, 10) from 10.0 to 11.0 ms and read-ahead goes on at
  // 0.1 ms a sector: at 11.25 it has read 10 and 11 and is in 12. A read the rule makes a
  // miss stops the read-ahead.
  const struct { unsigned wait; std::uint64_t lba; bool hit; Millis done; } cases[] = {
      {2, 12, true, 12.2}, {1, 12, true, 12.2},  {0, 12, false, 22.2},  // the next sector
      {2, 14, true, 12.4}, {1, 14, false, 22.4}, {0, 14, false, 22.4},  // two further on
      {0, 10, true, 12.0}};  // already read: a hit whatever the rule
  for (const auto& c : cases) {
    INFO("read_ahead_wait " << c.wait << ", lba " << c.lba);
    DriveParams d = read_ahead_drive();
    d.controller.command[0][1][0] = 0.3;  // read miss after read
    d.cache.read_ahead_wait = c.wait;
    VirtualDevice dev(disk_with(d));
    const Service miss = dev.serve(9.7, Op::Read, 0, 10 * kSector);
    REQUIRE_THAT(miss.completion_ms, WithinAbs(11.0, kEps));
    const Service next = dev.serve(11.25, Op::Read, c.lba * kSector, 10 * kSector);
    CHECK(next.hit == c.hit);
    CHECK_THAT(next.completion_ms, WithinAbs(c.done, kEps));
  }
}

TEST_CASE("a full hit costs command overhead and bus time only", "[drive]") {
  DriveParams d = read_ahead_drive();
  d.has_bus = true;
  d.bus.read_sector = 0.02;
  VirtualDevice dev(disk_with(d));
  dev.serve(0.0, Op::Read, 0, 10 * kSector);
  const Service hit = dev.serve(50.0, Op::Read, 2 * kSector, 8 * kSector);
  CHECK(hit.hit);
  CHECK(hit.cost.seek_ms == 0.0);
  CHECK(hit.cost.rotation_ms == 0.0);
  CHECK_THAT(hit.service_ms(), WithinAbs(0.5 + 8 * 0.02, kEps));
}

TEST_CASE("read-ahead stops at its limit; the next miss starts from there", "[drive]") {
  VirtualDevice dev(disk_with(read_ahead_drive()));
  dev.serve(0.0, Op::Read, 0, 10 * kSector);  // read-ahead to sector 60, done at 6.0 ms
  CHECK(dev.drive()->holds(7.0, 0, 60));
  CHECK_FALSE(dev.drive()->holds(7.0, 0, 61));
  // At 7.0 the platter is at angle 0.7; sector 60 comes at angle 0.6: 0.9 rotations away.
  const Service miss = dev.serve(7.0, Op::Read, 60 * kSector, 10 * kSector);
  CHECK_FALSE(miss.hit);
  CHECK_THAT(miss.completion_ms, WithinAbs(7.0 + 9.0 + 1.0, kEps));
}

TEST_CASE("the maximum read-ahead counts after the request's end, over requested or not",
          "[drive]") {
  // DiskSim's "Maximum read-ahead": the sectors read ahead after the request. A 10-sector
  // read at 0 reads ahead to sector 60 (not 50) whether or not read-ahead may overwrite
  // the request's sectors (the segment, 200 sectors, holds both).
  for (const bool over : {true, false}) {
    DriveParams d = read_ahead_drive();
    d.cache.read_ahead_over_requested = over;
    VirtualDevice dev(disk_with(d));
    dev.serve(0.0, Op::Read, 0, 10 * kSector);  // read-ahead done at 6.0 ms
    CHECK(dev.drive()->holds(7.0, 0, 60));
    CHECK_FALSE(dev.drive()->holds(7.0, 0, 61));
    const Service hit = dev.serve(20.0, Op::Read, 55 * kSector, 5 * kSector);
    CHECK(hit.hit);
    CHECK_THAT(hit.completion_ms, WithinAbs(20.5, kEps));
  }
}

TEST_CASE("read-ahead not over requested keeps the request's sectors in a full segment",
          "[drive]") {
  // A 30-sector segment, at most 50 read ahead. Over requested, read-ahead runs a segment
  // past the request's end (to 40) and the ring keeps [10, 40): a re-read of [0, 10)
  // misses, waits for angle 0 (20.0 ms, two rotations) and reads to 21.0. Not over
  // requested (DiskSim's "Read-ahead over requested = 0": prefetched data may not replace
  // the request's), it stops at 30 when the request and it fill the segment: a hit.
  for (const bool over : {true, false}) {
    DriveParams d = read_ahead_drive();
    d.cache.segment_sectors = 30;
    d.cache.read_ahead_over_requested = over;
    VirtualDevice dev(disk_with(d));
    dev.serve(0.0, Op::Read, 0, 10 * kSector);
    CHECK(dev.drive()->holds(19.0, over ? 10 : 0, 30) == true);
    CHECK(dev.drive()->holds(19.0, over ? 10 : 0, 31) == false);
    const Service again = dev.serve(20.0, Op::Read, 0, 10 * kSector);
    CHECK(again.hit == !over);
    CHECK_THAT(again.completion_ms, WithinAbs(over ? 21.0 : 20.5, kEps));
  }
}

TEST_CASE("a transfer runs at the slower of media and bus", "[drive]") {
  for (const auto& [bus, done] : {std::pair{0.15, 0.1 + 10 * 0.15}, std::pair{0.05, 1.0 + 0.05}}) {
    DriveParams d;
    d.has_bus = true;
    d.bus.read_sector = bus;
    VirtualDevice dev(disk_with(d));
    const Service s = dev.serve(0.0, Op::Read, 0, 10 * kSector);
    CHECK_THAT(s.completion_ms, WithinAbs(done, kEps));
  }
}

TEST_CASE("command overheads depend on the previous op", "[drive]") {
  DriveParams d;
  d.has_controller = true;
  d.controller.command[0][1][0] = 0.3;  // read miss after read
  d.controller.command[0][1][1] = 0.7;  // read miss after write
  d.controller.command[1][1][0] = 0.4;  // write miss after read
  VirtualDevice dev(disk_with(d));
  CHECK(dev.serve(0.0, Op::Read, 0, kSector).cost.overhead_ms == 0.3);
  CHECK(dev.serve(20.0, Op::Write, 0, kSector).cost.overhead_ms == 0.4);
  CHECK(dev.serve(40.0, Op::Read, 0, kSector).cost.overhead_ms == 0.7);
  CHECK(dev.serve(60.0, Op::Read, 0, kSector).cost.overhead_ms == 0.3);
}

TEST_CASE("write-behind acknowledges from the buffer and destages after", "[drive]") {
  VirtualDevice dev(disk_with(write_behind_drive()));
  // Sector 500 is cylinder 2, head 1, sector 0. Acknowledged after the overhead and the
  // bus: 0.2 + 10 x 0.01. The destage moves at 0.2, seeks 1 ms, waits for angle 0 (10.0)
  // and writes 10 sectors by 11.0.
  const Service w = dev.serve(0.0, Op::Write, 500 * kSector, 10 * kSector);
  CHECK(w.hit);
  CHECK_THAT(w.completion_ms, WithinAbs(0.3, kEps));
  CHECK(dev.drive()->dirty_sectors(0.3) == 10);
  CHECK(dev.drive()->dirty_sectors(11.0) == 0);
  CHECK_THAT(dev.drive()->mechanism_busy_until(), WithinAbs(11.0, kEps));
  // A read miss waits for the destage: from cylinder 2 at 11.0 (angle 0.1), a seek to
  // cylinder 0 (12.0, angle 0.2), 8 ms to angle 0, one sector.
  const Service r = dev.serve(1.0, Op::Read, 0, kSector);
  CHECK_FALSE(r.hit);
  CHECK_THAT(r.completion_ms, WithinAbs(20.1, kEps));
}

TEST_CASE("flush drains the write-behind; FUA goes through; size 0 is write-through",
          "[drive]") {
  {
    VirtualDevice dev(disk_with(write_behind_drive()));
    dev.serve(0.0, Op::Write, 500 * kSector, 10 * kSector);
    const Service f = dev.serve(1.0, Op::Flush, 0, 0);
    CHECK_THAT(f.completion_ms, WithinAbs(11.0, kEps));
  }
  {
    VirtualDevice dev(disk_with(write_behind_drive()));
    const Service w = dev.serve(0.0, Op::Write, 500 * kSector, 10 * kSector, /*fua=*/true);
    CHECK_FALSE(w.hit);
    CHECK_THAT(w.completion_ms, WithinAbs(11.0, kEps));
  }
  {
    DriveParams d = write_behind_drive();
    d.cache.segments = 0;
    VirtualDevice dev(disk_with(d));
    const Service w = dev.serve(0.0, Op::Write, 500 * kSector, 10 * kSector);
    CHECK_THAT(w.completion_ms, WithinAbs(11.0, kEps));
  }
}

TEST_CASE("a sequential write joins the destage it continues", "[drive]") {
  // One write segment: without combining the second write waits for the first's destage
  // (11.0) before the buffer takes it, and its own destage, after its command (11.2), has
  // just missed sector 510 (angle 0.1): a lost rotation. Combined, it is taken at once
  // and joins the run, which ends at 12.0.
  for (const bool combine : {true, false}) {
    DriveParams d = write_behind_drive();
    d.cache.combine_sequential_writes = combine;
    VirtualDevice dev(disk_with(d));
    dev.serve(0.0, Op::Write, 500 * kSector, 10 * kSector);
    const Service w = dev.serve(0.3, Op::Write, 510 * kSector, 10 * kSector);
    CHECK(w.hit == combine);
    CHECK_THAT(w.completion_ms, WithinAbs(combine ? 0.6 : 11.3, kEps));
    CHECK_THAT(dev.drive()->mechanism_busy_until(), WithinAbs(combine ? 12.0 : 22.0, kEps));
  }
}

TEST_CASE("the high water mark holds the bus until that part of a read is buffered", "[drive]") {
  // Bus 0.15 ms a sector, media 0.1: sent as it comes, the last sector leaves at
  // 0.1 + 10 x 0.15; with half the request buffered first (0.5), at 0.5 + 10 x 0.15;
  // with 0.75, 7 sectors (7.5 truncated, as DiskSim counts them) at 0.7 + 10 x 0.15.
  for (const auto& [water, done] :
       {std::pair{0.0, 1.6}, std::pair{0.5, 2.0}, std::pair{0.75, 2.2}}) {
    DriveParams d;
    d.has_bus = d.has_cache = true;
    d.bus.read_sector = 0.15;
    d.cache.high_water = water;
    VirtualDevice dev(disk_with(d));
    CHECK_THAT(dev.serve(0.0, Op::Read, 0, 10 * kSector).completion_ms, WithinAbs(done, kEps));
  }
}

TEST_CASE("read-ahead runs past a segment's worth of request, overwriting what was sent",
          "[drive]") {
  // A 180-sector read in 200-sector segments reads ahead its 50 sectors to 230; the
  // segment then holds the newest 200, [30, 230).
  VirtualDevice dev(disk_with(read_ahead_drive()));
  dev.serve(0.0, Op::Read, 0, 180 * kSector);
  CHECK(dev.drive()->holds(100.0, 180, 50));
  CHECK(dev.drive()->holds(100.0, 30, 200));
  CHECK_FALSE(dev.drive()->holds(100.0, 29, 1));
}

namespace {

// Write-through (fast write 0), a 0.2 ms command, 0.01 ms a sector on the bus.
DriveParams write_through_drive() {
  DriveParams d = write_behind_drive();
  d.cache.fast_write = 0;
  return d;
}

}  // namespace

TEST_CASE("a write-through write waiting for the media disconnects and reselects",
          "[drive]") {
  // Sector 50 passes under the head from 5.0 to 5.1 ms; the data is in at 0.21 ms.
  for (const bool on : {false, true}) {
    DriveParams d = write_through_drive();
    if (on) {
      d.controller.write_disconnect = 0.15;
      d.controller.write_reselect = 0.16;
    }
    VirtualDevice dev(disk_with(d));
    const Service w = dev.serve(0.0, Op::Write, 50 * kSector, kSector);
    CHECK_THAT(w.completion_ms, WithinAbs(on ? 5.1 + 0.16 : 5.1, kEps));
  }
}

TEST_CASE("a write that does not continue the last one seeks for at least the minimum",
          "[drive]") {
  // Sector 3 passes at 0.3 ms: reached after the 0.2 ms command with no seek, missed
  // after a 0.6 ms minimum seek (the next pass is at 10.3 ms).
  for (const Millis min_seek : {0.0, 0.6}) {
    DriveParams d = write_through_drive();
    d.controller.min_write_seek = min_seek;
    VirtualDevice dev(disk_with(d));
    const Service w = dev.serve(0.0, Op::Write, 3 * kSector, kSector);
    CHECK_THAT(w.completion_ms, WithinAbs(min_seek > 0 ? 10.4 : 0.4, kEps));
  }
}

TEST_CASE("a write that continues a finished write still seeks for at least the minimum",
          "[drive]") {
  // DiskSim waives its minimum seek delay only for a write stream whose media access is
  // still going. Sector 3 passes from 20.3 to 20.4 ms: reached after the command (20.2)
  // with no seek; after a 0.6 ms minimum seek the next pass, ending at 30.4, is.
  for (const Millis min_seek : {0.0, 0.6}) {
    DriveParams d = write_through_drive();
    d.controller.min_write_seek = min_seek;
    VirtualDevice dev(disk_with(d));
    dev.serve(0.0, Op::Write, 2 * kSector, kSector);
    const Service w = dev.serve(20.0, Op::Write, 3 * kSector, kSector);
    CHECK_THAT(w.completion_ms, WithinAbs(min_seek > 0 ? 30.4 : 20.4, kEps));
  }
}

TEST_CASE("an extra write disconnect delays the data of a write after a write it does not "
          "continue",
          "[drive]") {
  for (const bool extra : {false, true}) {
    DriveParams d = write_through_drive();
    d.controller.write_reselect = 0.15;
    d.controller.extra_write_disconnect = extra;
    d.controller.extra_command = 0.3;
    d.controller.extra_disconnect = 0.05;
    d.controller.extra_inter_disconnect = 0.4;
    d.controller.extra_seek_delta = 0.25;
    d.controller.extra_reselect = 0.1;
    VirtualDevice dev(disk_with(d));
    // The first write follows no write: sector 0 next passes at 10.0 ms; + reselect.
    const Service first = dev.serve(0.0, Op::Write, 0, kSector);
    CHECK_THAT(first.completion_ms, WithinAbs(10.25, kEps));
    // Sector 111 (head 1, sector 11) passes at 11.1 ms. Plain: the command ends at 10.45,
    // the data is in at 10.46, in time; + reselect 0.15. Extra: the data starts after
    // 0.3 + 0.05 + 0.4 + 0.15 = 0.9 ms and is in at 11.16, too late: the next pass ends
    // at 21.2; + the other reselect 0.1.
    const Service second = dev.serve(10.25, Op::Write, 111 * kSector, kSector);
    CHECK_THAT(second.completion_ms, WithinAbs(extra ? 21.3 : 11.35, kEps));
    // A write that continues it has no extra disconnect: sector 112 passes at 21.2, the
    // command ends at 21.5, so 31.3 + reselect.
    const Service third = dev.serve(second.completion_ms, Op::Write, 112 * kSector, kSector);
    CHECK_THAT(third.completion_ms, WithinAbs(extra ? 31.3 + 0.15 : 21.3 + 0.15, kEps));
  }
}

TEST_CASE("with extra write disconnects a write's media waits for its first ten sectors",
          "[drive]") {
  // 20 sectors from LBA 5 (passing from 0.5 ms); 0.05 ms a sector on the bus from 0.2:
  // each sector is in before it passes, but the tenth only at 0.7 ms, so the drive
  // waits for the next pass (10.5 ms) when it needs ten.
  for (const bool extra : {false, true}) {
    DriveParams d = write_through_drive();
    d.bus.write_sector = 0.05;
    d.controller.extra_write_disconnect = extra;
    VirtualDevice dev(disk_with(d));
    const Service w = dev.serve(0.0, Op::Write, 5 * kSector, 20 * kSector);
    CHECK_THAT(w.completion_ms, WithinAbs(extra ? 12.5 : 2.5, kEps));
  }
}

TEST_CASE("read-ahead stopped after it left for the next cylinder leaves the arm there",
          "[drive]") {
  // [190, 200) is the end of cylinder 0 (head 1), read from 9.0 to 10.0 ms; the read-ahead
  // then seeks to cylinder 1 (1 ms, there at 11.0) for LBAs 200-249. A miss on cylinder 0
  // stops it: the arm comes back from cylinder 1, as in DiskSim, not from cylinder 0.
  struct Case {
    Millis at;
    std::uint64_t lba;
    Millis done;
  };
  // Mid-seek (10.5): the seek ends at 11.0, back at 12.0, so LBA 15 (11.5-11.6) waits a
  // turn. On cylinder 1 (12.5): back at 13.5, so LBA 30 (13.0-13.1) waits a turn.
  for (const Case c : {Case{10.5, 15, 21.6}, Case{12.5, 30, 23.1}}) {
    VirtualDevice dev(disk_with(read_ahead_drive()));
    const Service first = dev.serve(0.0, Op::Read, 190 * kSector, 10 * kSector);
    REQUIRE_THAT(first.completion_ms, WithinAbs(10.0, kEps));
    const Service miss = dev.serve(c.at, Op::Read, c.lba * kSector, kSector);
    CHECK_FALSE(miss.hit);
    CHECK_THAT(miss.completion_ms, WithinAbs(c.done, kEps));
  }
}

TEST_CASE("continuous read 4 reads ahead to the end of the track after the request, and a "
          "track more for a sequential reader (DiskSim's DEC prefetch scheme)",
          "[drive]") {
  DriveParams d = read_ahead_drive();
  d.cache.continuous_read = 4;  // max_read_ahead (50) plays no part
  {
    VirtualDevice dev(disk_with(d));
    // [10, 20) from 1.0 to 2.0 ms; read-ahead to the end of track 0 (sector 100) at 10.0.
    dev.serve(0.0, Op::Read, 10 * kSector, 10 * kSector);
    CHECK_FALSE(dev.drive()->holds(9.95, 99, 1));
    CHECK(dev.drive()->holds(10.0, 20, 80));
    CHECK_FALSE(dev.drive()->holds(50.0, 100, 1));
    const Service miss = dev.serve(50.0, Op::Read, 100 * kSector, 1 * kSector);
    CHECK_FALSE(miss.hit);
  }
  {
    VirtualDevice dev(disk_with(d));
    dev.serve(0.0, Op::Read, 10 * kSector, 10 * kSector);
    // A hit on [95, 100) while the read-ahead runs: the sector after it is on track 1,
    // which the segment (from 10) did not begin on: to the end of track 1 and one track
    // (100 sectors) more, 300. Track 1 is read by 20.0 ms; track 2 is on cylinder 1 (a
    // 1 ms seek, then its sector 0 comes round at 30.0): read by 40.0.
    const Service hit = dev.serve(3.0, Op::Read, 95 * kSector, 5 * kSector);
    CHECK(hit.hit);
    CHECK_THAT(hit.completion_ms, WithinAbs(10.0, kEps));
    CHECK(dev.drive()->holds(20.0, 100, 100));
    CHECK_FALSE(dev.drive()->holds(39.95, 299, 1));
    CHECK(dev.drive()->holds(40.0, 100, 200));
    CHECK_FALSE(dev.drive()->holds(60.0, 300, 1));
  }
}

TEST_CASE("continuous read 4 with segments shorter than a track reads on to the track's end and "
          "keeps the newest segment's worth (DiskSim's ring)",
          "[drive]") {
  DriveParams d = read_ahead_drive();
  d.cache.continuous_read = 4;
  d.cache.segment_sectors = 40;
  VirtualDevice dev(disk_with(d));
  // [10, 20) from 1.0 to 2.0 ms; read-ahead runs to the end of track 0 (sector 100) at
  // 10.0 ms whatever the segment's size; the 40-sector ring then holds [60, 100).
  dev.serve(0.0, Op::Read, 10 * kSector, 10 * kSector);
  CHECK(dev.drive()->holds(6.0, 20, 40));
  CHECK_FALSE(dev.drive()->holds(6.1, 20, 1));  // sector 60 in: the ring has moved past 20
  CHECK(dev.drive()->holds(10.0, 60, 40));
  CHECK_FALSE(dev.drive()->holds(10.0, 59, 1));
  const Service hit = dev.serve(50.0, Op::Read, 90 * kSector, 10 * kSector);
  CHECK(hit.hit);
  CHECK_THAT(hit.completion_ms, WithinAbs(50.5, kEps));  // the hit overhead alone
  CHECK_FALSE(dev.serve(60.0, Op::Read, 20 * kSector, 10 * kSector).hit);
}

TEST_CASE("read-ahead over requested -1: the sectors a read sent the host leave its segment",
          "[drive]") {
  for (const bool forget : {false, true}) {
    INFO("forget_sent " << forget);
    DriveParams d = read_ahead_drive();
    d.cache.forget_sent = forget;
    VirtualDevice dev(disk_with(d));
    // [0, 10) from 0 to 1.0 ms, then read ahead its 50 sectors to 60 (6.0 ms).
    dev.serve(0.0, Op::Read, 0, 10 * kSector);
    CHECK(dev.drive()->holds(20.0, 0, 10) == !forget);
    CHECK(dev.drive()->holds(20.0, 10, 50));
    const Service again = dev.serve(20.0, Op::Read, 0, 10 * kSector);
    CHECK(again.hit == !forget);
    const Service ahead = dev.serve(40.0, Op::Read, 10 * kSector, 10 * kSector);
    CHECK(ahead.hit);
    CHECK_THAT(ahead.completion_ms, WithinAbs(40.5, kEps));
  }
}
