// The simulator over a drive with its own command queue: a FIFO drive queue changes
// nothing but when requests leave the host, and a reordering drive serves out of the
// host's order. (Depth 1 being the device without a queue, exactly, is the device's own
// test: tests/emulator/device/test_drive_queue.cpp.)
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/experiments/workload/workload.hpp"
#include "emulator/sim/simulator.hpp"
#include "emulator/sim/stats.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

struct Run {
  SimResult result;
  std::vector<RequestRecord> completed;  // in completion order
};

Run run(const std::string& sched, unsigned depth, std::optional<DriveQueueOptions> drive,
        double rate) {
  auto m = load_model("hp97560");
  SimConfig cfg;
  cfg.depth = depth;
  cfg.warmup = 200;
  cfg.measured = 1500;
  cfg.drive_queue = drive;
  Simulator sim(*m, make_scheduler(sched, *m), cfg);
  Run r;
  sim.on_complete([&](const RequestRecord& x) { r.completed.push_back(x); });
  auto w = Workload::parse("uniform");
  auto stream = w.open_stream(DeviceExtent::of(*m), rate, 17);
  r.result = sim.run(*stream);
  REQUIRE_FALSE(r.result.saturated);
  return r;
}

}  // namespace

TEST_CASE("a FIFO drive queue serves as the device without one", "[sim][drive-queue]") {
  // FCFS at the host with 32 at the drive, FCFS in the drive: the same service, only the
  // dispatches leave the host earlier.
  const Run plain = run("fcfs", 1, std::nullopt, 45);
  const Run queued = run("fcfs", 32, DriveQueueOptions{.depth = 32, .policy = "fcfs"}, 45);
  REQUIRE(plain.completed.size() == queued.completed.size());
  std::size_t earlier = 0;
  for (std::size_t i = 0; i < plain.completed.size(); ++i) {
    const RequestRecord& a = plain.completed[i];
    const RequestRecord& b = queued.completed[i];
    INFO("completion " << i);
    REQUIRE(a.seq == b.seq);
    CHECK(a.start_ms == b.start_ms);
    CHECK(a.completion_ms == b.completion_ms);
    CHECK(b.dispatch_ms <= a.dispatch_ms);
    earlier += b.dispatch_ms < a.dispatch_ms;
  }
  CHECK(earlier > 100);
}

TEST_CASE("a reordering drive serves out of the host's order", "[sim][drive-queue]") {
  const Run fifo = run("fcfs", 32, DriveQueueOptions{.depth = 32, .policy = "fcfs"}, 38);
  const Run satf = run("fcfs", 32, DriveQueueOptions{.depth = 32, .policy = "satf"}, 38);
  std::size_t reordered = 0;
  for (std::size_t i = 1; i < satf.completed.size(); ++i)
    reordered += satf.completed[i].seq < satf.completed[i - 1].seq;
  CHECK(reordered > 100);
  CHECK(satf.result.measured.size() == 1500);
  // In virtual time, exactly: the drive's SATF shortens the mean response.
  CHECK(summarize(satf.result).mean_ms < summarize(fifo.result).mean_ms);
  // The host (FCFS) dispatched in arrival order all the same.
  for (std::size_t i = 1; i < satf.result.measured.size(); ++i)
    CHECK(satf.result.measured[i].dispatch_ms >= satf.result.measured[i - 1].dispatch_ms);
}

TEST_CASE("SATF in the drive is SATF at the host while the drive holds the whole queue",
          "[sim][drive-queue]") {
  // The host at depth 1 picks at each completion among all that wait; a drive holding
  // all of them picks at the same instant, from the same head, by the same rule.
  const Run host = run("satf", 1, std::nullopt, 45);
  const Run drive = run("fcfs", 32, DriveQueueOptions{.depth = 32, .policy = "satf"}, 45);
  REQUIRE(host.result.max_queue_seen < 32);
  REQUIRE(host.completed.size() == drive.completed.size());
  std::size_t reordered = 0;
  for (std::size_t i = 0; i < host.completed.size(); ++i) {
    INFO("completion " << i);
    REQUIRE(host.completed[i].seq == drive.completed[i].seq);
    CHECK(host.completed[i].start_ms == drive.completed[i].start_ms);
    CHECK(host.completed[i].completion_ms == drive.completed[i].completion_ms);
    reordered += i > 0 && host.completed[i].seq < host.completed[i - 1].seq;
  }
  CHECK(reordered > 100);
}

TEST_CASE("a 5400 rpm drive gains at depth 32 under an age limit", "[sim][drive-queue]") {
  // 32 random 4 KiB readers: 32 x the drive's FCFS service (about 18 ms) is more than a
  // 500 ms age limit, so with the oldest overdue command always next the queue stayed
  // overdue and was served in arrival order (56 IOPS at depth 1, 57 at 32). Overdue
  // commands go by positioning among themselves now: the queue gains at 500 ms, and at
  // the default 1 s (above the sojourn SATF's tail needs) as real desktop drives do.
  auto m = load_model("laptop5400-320gb");
  auto iops = [&](unsigned depth, Millis age_limit) {
    SimConfig cfg;
    cfg.depth = depth;
    cfg.warmup = 300;
    cfg.measured = 2000;
    if (depth > 1) cfg.drive_queue = DriveQueueOptions{.depth = depth, .policy = "satf", .age_limit_ms = age_limit};
    Simulator sim(*m, make_scheduler("fcfs", *m), cfg);
    auto w = Workload::parse(fmt::format("closed:n={},size=4k,align=4k", depth));
    auto clients = w.closed_stream(DeviceExtent::of(*m), 5);
    const SimResult r = sim.run(*clients);
    REQUIRE_FALSE(r.saturated);
    return static_cast<double>(r.measured_completed) / (r.window_end_ms - r.window_start_ms) * 1000.0;
  };
  const double qd1 = iops(1, 0.0), at500 = iops(32, 500.0), at1s = iops(32, 1000.0);
  INFO("QD1 " << qd1 << " IOPS, QD32 " << at500 << " at 500 ms, " << at1s << " at 1 s");
  CHECK(at500 > 1.1 * qd1);
  CHECK(at1s > 1.5 * qd1);
}
