// The simulator's write cache (`disksched sim --write-cache`), exactly in virtual time:
// a write completes after the host transfer, and the destages that follow it show in
// the device's busy time.
//
// The small disk (small_disk.hpp) with a bus of 0.05 ms a sector from the host and none
// back. Writes A (cylinder 2, angle 0.5), B (cylinder 5, angle 0.2) and C (cylinder 8,
// angle 0.15) arrive at 0, a read of LBA 0 at 50.
#include <memory>
#include <optional>
#include <vector>

#include <catch2/catch.hpp>

#include "emulator/sim/simulator.hpp"
#include "predictor/disk_model.hpp"
#include "schedulers/registry.hpp"
#include "tests/emulator/device/small_disk.hpp"
#include "tests/emulator/sim/listed_arrivals.hpp"

using namespace disksched;
using Catch::Matchers::WithinAbs;
using testing::kEps, testing::kSector;

namespace {

constexpr std::uint64_t kA = 2 * 200 + 100 + 50, kB = 5 * 200 + 20, kC = 8 * 200 + 100 + 15;

using Listed = disksched::testing::ListedArrivals;

// `items` through FCFS on the small disk with the bus, every one measured.
SimResult run_fcfs(const char* name, std::optional<WriteCacheOptions> cache,
                   const std::vector<Arrival>& items) {
  DiskProfile p = testing::small_disk(name);
  p.drive.has_bus = true;
  p.drive.bus.write_sector = 0.05;
  const DiskModel model(p);
  SimConfig cfg;
  cfg.warmup = 0;
  cfg.measured = items.size();
  cfg.device.write_cache = cache;
  Simulator sim(model, make_scheduler("fcfs", model), cfg);
  Listed arrivals(items);
  return sim.run(arrivals);
}

SimResult run(std::optional<WriteCacheOptions> cache) {
  return run_fcfs("sim-write-cache", cache,
                  {{0.0, Op::Write, kA * kSector, kSector},
                   {0.0, Op::Write, kB * kSector, kSector},
                   {0.0, Op::Write, kC * kSector, kSector},
                   {50.0, Op::Read, 0, kSector}});
}

}  // namespace

TEST_CASE("sim --write-cache: writes complete in bus time, destage is busy time",
          "[write-cache][sim]") {
  const SimResult r = run(WriteCacheOptions{64 * kSector, 1.0});
  REQUIRE(r.measured.size() == 4);
  for (int i = 0; i < 3; ++i) {
    INFO("write " << i);
    CHECK_THAT(r.measured[i].completion_ms - r.measured[i].start_ms, WithinAbs(0.05, kEps));
    CHECK_THAT(r.measured[i].completion_ms, WithinAbs(0.05 * (i + 1), kEps));
  }
  // The mechanism destages from 0.05, when A is in: A (on the media at 5.1, the only
  // dirty extent then), then C (11.6) and B (22.1) by shortest positioning. The read
  // then seeks at 50 and waits for sector 0: 60.1.
  CHECK_THAT(r.measured[3].start_ms, WithinAbs(50.0, kEps));
  CHECK_THAT(r.measured[3].completion_ms, WithinAbs(60.1, kEps));
  // Busy: from 0 to 22.1 (the transfers of B and C, 0.05 to 0.15, overlap the destages
  // from 0.05: counted once) and the read (10.1).
  CHECK_THAT(r.busy_in_window_ms, WithinAbs(22.1 + 10.1, kEps));
}

TEST_CASE("sim without a write cache: the same writes pay their mechanical time",
          "[write-cache][sim]") {
  const SimResult r = run(std::nullopt);
  REQUIRE(r.measured.size() == 4);
  // A from cylinder 0 at 0: seek 1.0, angle 0.5 at 5.0, 5.1; the others after it.
  CHECK_THAT(r.measured[0].completion_ms, WithinAbs(5.1, kEps));
  CHECK(r.measured[2].completion_ms > 10.0);
  CHECK_THAT(r.busy_in_window_ms,
             WithinAbs(r.measured[2].completion_ms + (r.measured[3].completion_ms - 50.0), kEps));
}

TEST_CASE("sim --write-cache: writes faster than the media keep the device busy at most all the time",
          "[write-cache][sim]") {
  // 40 scattered writes at once into a cache of 8 sectors marked at 4: the drive drains
  // to the mark before each write it takes, so commands wait for the mechanism and the
  // busy time (commands and destages, overlapping) is never more than the window.
  std::vector<Arrival> items;
  for (std::uint64_t i = 0; i < 40; ++i)
    items.push_back({0.0, Op::Write, ((i * 7919) % 1800 + 100) * kSector, kSector});
  const SimResult r = run_fcfs("sim-write-cache-full", WriteCacheOptions{8 * kSector, 0.5}, items);
  REQUIRE(r.measured.size() == 40);
  const Millis window = r.window_end_ms - r.window_start_ms;
  CHECK(window > 40 * 1.0);  // each write past the first five waits for a destage
  CHECK(r.busy_in_window_ms <= window + kEps);
  CHECK(r.busy_in_window_ms > 0.9 * window);
}
