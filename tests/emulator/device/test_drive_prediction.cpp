// The predictor and the emulated device agree on the drive's buffer: the head tracker,
// fed the requests the device serves, predicts each one's completion (hits, read-ahead
// partial hits, write-behind acknowledgements and misses behind a destage) as the
// device serves it.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "emulator/device/simulated_drive.hpp"
#include "emulator/device/virtual_device.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/head_tracker.hpp"
#include "schedulers/dispatch/dispatch_core.hpp"
#include "schedulers/registry.hpp"
#include "tests/emulator/device/small_disk.hpp"
#include "tests/predictor/zoned_profile.hpp"

using namespace disksched;
using Catch::Matchers::WithinAbs;

namespace {

DiskProfile cached_disk() {
  DiskProfile p = testing::zoned_profile(true);
  DriveParams& d = p.drive;
  d.has_controller = d.has_bus = d.has_cache = true;
  for (int w = 0; w < 2; ++w)
    for (int m = 0; m < 2; ++m)
      for (int a = 0; a < 2; ++a) d.controller.command[w][m][a] = 0.1 + 0.2 * w + 0.3 * m + 0.05 * a;
  d.controller.read_completion = 0.03;
  d.controller.write_completion = 0.02;
  d.controller.reselect = 0.04;
  d.controller.data_preparation = 0.01;
  d.bus.read_sector = 0.09;  // slower than the outer zone's media (8 ms / 120)
  d.bus.write_sector = 0.05;
  d.cache.segments = 3;
  d.cache.segment_sectors = 300;
  d.cache.write_segments = 2;
  d.cache.continuous_read = 3;
  d.cache.max_read_ahead = 200;
  d.cache.read_ahead_over_requested = true;
  d.cache.fast_write = 2;
  d.cache.combine_sequential_writes = true;
  return p;
}

}  // namespace

TEST_CASE("head tracker and device agree on every hit and miss of the drive's buffer",
          "[drive]") {
  const DiskModel model(cached_disk());
  VirtualDevice dev(model);
  HeadTracker::Options o;
  o.refine_period = false;
  o.refine_track_phase = false;
  HeadTracker tracker(model, o);
  const std::uint32_t sb = model.sector_bytes();
  const std::uint64_t lbas = model.lbas();

  std::uint64_t rng = 12345, next_seq = 0;
  auto draw = [&](std::uint64_t n) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (rng >> 33) % n;
  };
  Millis now = 0.0;
  unsigned hits = 0, misses = 0, writes = 0;
  for (std::uint64_t id = 0; id < 400; ++id) {
    // Sequential runs (read-ahead hits), re-reads (full hits), random reads and writes.
    const auto kind = draw(10);
    const std::uint32_t n = 1 + static_cast<std::uint32_t>(draw(24));
    std::uint64_t lba = kind < 4 ? next_seq : kind < 6 ? (next_seq > 30 ? next_seq - 30 : 0) : draw(lbas - 64);
    if (lba + n > lbas) lba = 0;
    const Op op = kind >= 8 ? Op::Write : Op::Read;
    now += static_cast<Millis>(draw(40)) * 0.25;  // think time
    const Service s = dev.serve(now, op, lba * sb, n * sb);
    const Prediction& p = tracker.dispatched(id, s.start_ms, op, lba * sb, n * sb);
    CHECK_THAT(p.completion_ms(), WithinAbs(s.completion_ms, 1e-6));
    tracker.completed(id, s.completion_ms, true);
    now = s.completion_ms;
    next_seq = lba + n;
    (op == Op::Write ? writes : s.hit ? hits : misses) += 1;
  }
  // The mix exercised what it is for.
  CHECK(hits > 80);
  CHECK(misses > 80);
  CHECK(writes > 40);
}

namespace {

// 10 cylinders x 2 heads x 100 sectors, 10 ms a rotation, seeks 1 ms; a read hit costs
// 0.5 ms of command overhead; read-ahead after a read.
DiskProfile small_cached_disk() {
  DiskProfile p = testing::small_disk("disk");
  p.drive = testing::read_ahead_drive();
  return p;
}

// Dispatch order of: A = [0, 10) at 0; at 0.5 B = [130, 132) and C = [0, 10) again.
std::vector<std::uint64_t> order_under(const std::string& sched) {
  const DiskModel model(small_cached_disk());
  VirtualDevice dev(model);
  SimulatedDrive drive(dev);
  DispatchCore core(make_scheduler(sched, model), model, drive, 1);
  std::vector<std::uint64_t> order;
  auto read = [&](std::uint64_t lba, std::uint32_t n, Millis at) {
    core.arrive(RequestRecord::arriving(Op::Read, lba * 512, n * 512), at, order);
  };
  read(0, 10, 0.0);
  read(130, 2, 0.5);
  read(0, 10, 0.5);
  while (drive.busy()) {
    const Millis t = drive.next_completion_ms();
    core.complete(drive.next().id, t, true, order);
  }
  return order;
}

}  // namespace

TEST_CASE("a rotation-aware scheduler serves a buffer hit first; FCFS keeps its order",
          "[drive]") {
  // At A's completion (1.0) B is 2 ms of rotation away; C, by the platter, 9 ms, but the
  // buffer holds it whole: 0.5 ms.
  CHECK(order_under("satf") == std::vector<std::uint64_t>{0, 2, 1});
  CHECK(order_under("fcfs") == std::vector<std::uint64_t>{0, 1, 2});
}
