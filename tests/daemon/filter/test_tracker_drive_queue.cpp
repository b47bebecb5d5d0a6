// The filter's head tracker above a drive that queues: the filter's assembly (LiveCore,
// the live head tracker, delta 0 on an exact device) dispatching to a DriveQueue in
// virtual time. The tracker predicts each request after the previous dispatch, so it is
// right while the drive serves in dispatch order (depth 1, or a FIFO drive queue) and
// wrong once the drive reorders: completions then arrive in the drive's order. Prints
// the share of service times predicted within one sector time.
#include <catch2/catch.hpp>

#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "daemon/filter/live_core.hpp"
#include "emulator/device/drive_queue.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

double within_one_sector(const std::string& sched, unsigned depth, DriveQueueOptions drive,
                         double rate) {
  auto m = load_model("hp97560");
  LiveCore::Options o;
  o.depth = depth;
  o.fixed_delta = 0.0;
  LiveCore core(load_model("hp97560"), make_scheduler(sched, *m), o);
  VirtualDevice device(load_model("hp97560"));
  DriveQueue q(device, drive);

  std::mt19937_64 rng(3);
  std::exponential_distribution<double> gap(rate / 1000.0);
  std::uniform_int_distribution<std::uint64_t> slot(0, m->capacity_bytes() / 8192 - 1);
  std::vector<std::uint64_t> dispatched;
  auto send = [&](Millis now) {
    for (const std::uint64_t id : dispatched) {
      const RequestRecord& r = core.record(id);
      q.submit(id, now, r.op, r.offset, r.length, {r.travel.begin(), r.travel.end()});
    }
    dispatched.clear();
    q.start(now);
  };
  Millis next_arrival = gap(rng);
  std::size_t arrived = 0;
  const std::size_t n = 3000;
  while (arrived < n || !q.idle()) {
    if (arrived < n && next_arrival < q.next_completion_ms()) {
      core.arrive(RequestRecord::arriving(Op::Read, slot(rng) * 8192, 8192), next_arrival,
                  dispatched);
      ++arrived;
      send(next_arrival);
      next_arrival += gap(rng);
    } else {
      const Millis t = q.next_completion_ms();
      const DriveQueue::Served d = q.complete();
      core.complete(d.tag, t, true, dispatched);
      send(t);
    }
  }
  const DispatchStats& s = core.core().stats();
  REQUIRE(s.completed == n);
  return static_cast<double>(s.predictions_within) / static_cast<double>(s.predictions_checked);
}

}  // namespace

TEST_CASE("the head tracker predicts within one sector only while the drive keeps dispatch order",
          "[sim][filter][drive-queue]") {
  struct Case {
    const char* sched;
    unsigned depth;
    DriveQueueOptions drive;
    double rate;
  };
  const Case cases[] = {
      {"asatf:w=30", 1, {.depth = 1}, 50},
      {"asatf:w=30", 4, {.depth = 4, .policy = "fcfs"}, 50},
      {"asatf:w=30", 4, {.depth = 4, .policy = "satf"}, 50},
      {"fcfs", 32, {.depth = 32, .policy = "satf"}, 50},
      {"asatf:w=30", 32, {.depth = 32, .policy = "satf"}, 50},
  };
  std::vector<double> got;
  for (const Case& c : cases) {
    const double w = within_one_sector(c.sched, c.depth, c.drive, c.rate);
    std::cout << fmt::format("host {} sched-depth={}, drive queue {} {}: {:.1f}% within one sector\n",
                             c.sched, c.depth, c.drive.depth, c.drive.policy, 100.0 * w);
    got.push_back(w);
  }
  CHECK(got[0] >= 0.99);  // the drive serves in dispatch order: the tracker is exact
  CHECK(got[1] >= 0.99);
  CHECK(got[2] < 0.5);    // the drive reorders: completions no longer follow dispatches
  CHECK(got[3] < 0.5);
  CHECK(got[4] < 0.5);
}
