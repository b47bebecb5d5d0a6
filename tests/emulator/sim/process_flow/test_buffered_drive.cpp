// The drive's read buffer (GP Table 2: 64 KB) and GP's disk, exactly.
#include <catch2/catch.hpp>

#include <cmath>

#include "emulator/device/virtual_device.hpp"
#include "emulator/sim/process_flow/buffered_drive.hpp"

using namespace disksched;
using disksched::flow::BufferedDrive;

TEST_CASE("gp93: GP's Table 2 disk, with a mean seek of exactly 12.0 ms over random cylinder pairs") {
  auto m = load_model("gp93");
  CHECK(m->rotation_ms() == Approx(60000.0 / 3600.0));
  CHECK(m->cylinders() == 1632);
  const std::int64_t n = m->cylinders();
  // Over uniformly random (start, end) pairs: P(distance 0) = 1/n, P(d) = 2(n - d)/n^2.
  double mean = 0;
  for (std::int64_t d = 1; d < n; ++d) mean += 2.0 * static_cast<double>(n - d) / (n * n) * m->seek_ms(d);
  CHECK(mean == Approx(12.0).epsilon(1e-9));
}

TEST_CASE("the read buffer: the drive reads on after a read; a later read inside it is a hit") {
  auto m = load_model("gp93");
  VirtualDevice dev(*m);
  BufferedDrive drive(dev, 64 * 1024);
  const Millis sector = m->rotation_ms() / 71;  // zone 0
  // Sectors 0..7 from the media.
  const Prediction& p0 = drive.dispatched(0, 0.0, Op::Read, 0, 4096);
  const Millis c0 = p0.completion_ms();
  CHECK_FALSE(drive.next().hit);
  drive.completed(0, c0, true);

  SECTION("the next 4 KB at once: done when the platter has brought its 8 sectors") {
    drive.dispatched(1, c0, Op::Read, 4096, 4096);
    CHECK(drive.next().hit);
    CHECK(drive.next().completion_ms == Approx(c0 + 8 * sector));
    CHECK(drive.next().seek_cylinders == 0);
  }
  SECTION("later, already in the buffer: no time at all") {
    drive.dispatched(1, c0 + 100.0, Op::Read, 16 * 512, 4096);
    CHECK(drive.next().hit);
    CHECK(drive.next().completion_ms == c0 + 100.0);
  }
  SECTION("past 64 KB from the read's start: a miss") {
    drive.dispatched(1, c0 + 100.0, Op::Read, 64 * 1024, 4096);
    CHECK_FALSE(drive.next().hit);
  }
  SECTION("a read elsewhere stops the read-ahead where it had got to") {
    drive.dispatched(1, c0, Op::Read, 100 * 1024 * 1024, 4096);  // far away
    const Millis c1 = drive.next().completion_ms;
    drive.completed(1, c1, true);
    // That read replaced the buffer: sector 8 is gone.
    drive.dispatched(2, c1, Op::Read, 4096, 4096);
    CHECK_FALSE(drive.next().hit);
  }
  SECTION("a write elsewhere keeps what was read ahead before it") {
    drive.dispatched(1, c0 + 10 * sector, Op::Write, 100 * 1024 * 1024, 4096);
    const Millis c1 = drive.next().completion_ms;
    drive.completed(1, c1, true);
    drive.dispatched(2, c1, Op::Read, 4096, 4096);  // sectors 8..15, read by c0 + 8 sectors
    CHECK(drive.next().hit);
    drive.completed(2, drive.next().completion_ms, true);
    drive.dispatched(3, c1 + 1, Op::Read, 20 * 512, 4096);  // sectors 20..27: not read by then
    CHECK_FALSE(drive.next().hit);
  }
}
