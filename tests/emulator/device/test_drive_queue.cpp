// The drive's own command queue, exactly, in device time: the firmware's order is its
// scheduler's, the age limit forces an old command, depth 1 is the device without a
// queue, commands beyond the depth wait in arrival order, a flush is not queued.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/spec.hpp"
#include "emulator/device/drive_queue.hpp"
#include "emulator/device/jitter.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

struct Cmd {
  Millis at;
  Op op;
  std::uint64_t offset;
  std::uint32_t length;
};

// Plays `cmds` (by arrival time) through the drive: completions before arrivals at the
// same instant, and the firmware chooses only after every event of an instant.
std::vector<DriveQueue::Served> play(DriveQueue& q, const std::vector<Cmd>& cmds) {
  std::vector<DriveQueue::Served> out;
  std::size_t next = 0;
  while (next < cmds.size() || !q.idle()) {
    const Millis t_done = q.next_completion_ms();
    Millis now;
    if (next < cmds.size() && cmds[next].at < t_done) {
      now = cmds[next].at;
      while (next < cmds.size() && cmds[next].at == now) {
        q.submit(next, now, cmds[next].op, cmds[next].offset, cmds[next].length);
        ++next;
      }
    } else {
      now = t_done;
      out.push_back(q.complete());
      while (next < cmds.size() && cmds[next].at == now) {
        q.submit(next, now, cmds[next].op, cmds[next].offset, cmds[next].length);
        ++next;
      }
    }
    q.start(now);
  }
  return out;
}

std::vector<Cmd> random_reads(const DeviceModel& m, std::size_t n, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> slot(0, m.capacity_bytes() / 8192 - 1);
  std::vector<Cmd> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back({0.0, Op::Read, slot(rng) * 8192, 8192});
  return v;
}

}  // namespace

TEST_CASE("the drive serves what it holds in its policy's order", "[device][drive-queue]") {
  for (const char* policy : {"satf", "asatf:w=30", "sstf", "fcfs"}) {
    DYNAMIC_SECTION(policy) {
      auto model = load_model("hp97560");
      // One command starts at once; 24 more arrive while it is served.
      std::vector<Cmd> cmds = random_reads(*model, 25, 11);
      for (std::size_t i = 1; i < cmds.size(); ++i) cmds[i].at = 1.0;
      VirtualDevice dev(load_model("hp97560"));
      DriveQueue q(dev, {.depth = 32, .policy = policy});
      const auto served = play(q, cmds);
      REQUIRE(served.size() == cmds.size());

      // The same scheduler on the same requests, picking from where each one left the head.
      VirtualDevice ref(load_model("hp97560"));
      auto sched = make_scheduler(policy, ref.model());
      const Service first = ref.serve(0.0, cmds[0].op, cmds[0].offset, cmds[0].length);
      CHECK(served[0].tag == 0);
      CHECK(served[0].service.completion_ms == first.completion_ms);
      const std::uint32_t sb = ref.model().sector_bytes();
      for (std::uint64_t i = 1; i < cmds.size(); ++i) {
        Request r;
        r.id = i;
        r.op = cmds[i].op;
        r.offset = cmds[i].offset;
        r.length = cmds[i].length;
        r.arrival_ms = 1.0;
        r.loc = ref.model().locate(r.offset / sb, r.length / sb, r.op);
        sched->add(r);
      }
      std::size_t reordered = 0;
      for (std::size_t k = 1; k < served.size(); ++k) {
        const auto r = sched->pick(ref.head().time_ms, ref.head());
        REQUIRE(r.has_value());
        const Service s = ref.serve(1.0, r->op, r->offset, r->length);
        INFO("pick " << k);
        CHECK(served[k].tag == r->id);
        CHECK(served[k].service.start_ms == s.start_ms);
        CHECK(served[k].service.completion_ms == s.completion_ms);
        CHECK_FALSE(served[k].forced);
        reordered += served[k].tag != k;
      }
      if (std::string(policy) == "fcfs") CHECK(reordered == 0);
      else CHECK(reordered > 10);
      CHECK(q.policy() == sched->spec());
    }
  }
}

TEST_CASE("a command older than the age limit goes next", "[device][drive-queue]") {
  auto model = load_model("hp97560");
  // A far command at t = 1, then 40 near ones at t = 2: SSTF prefers every near one, so
  // without a limit the far one is served last.
  const std::uint64_t far = model->capacity_bytes() - 8192;
  std::vector<Cmd> cmds = {{0.0, Op::Read, 0, 8192}, {1.0, Op::Read, far, 8192}};
  for (int i = 1; i <= 40; ++i)
    cmds.push_back({2.0, Op::Read, static_cast<std::uint64_t>(i) * 65536, 8192});

  auto far_pick = [&](DriveQueueOptions o, std::uint64_t* forced) {
    VirtualDevice dev(load_model("hp97560"));
    DriveQueue q(dev, o);
    const auto served = play(q, cmds);
    *forced = q.forced();
    for (std::size_t k = 0; k < served.size(); ++k)
      if (served[k].tag == 1) return std::make_pair(k, served);
    FAIL("the far command was never served");
    return std::make_pair(std::size_t{0}, served);
  };

  std::uint64_t forced = 0;
  const auto [k_free, free_order] = far_pick({.depth = 32, .policy = "sstf"}, &forced);
  CHECK(forced == 0);
  CHECK(k_free == cmds.size() - 1);

  const auto [k, served] =
      far_pick({.depth = 32, .policy = "sstf", .age_limit_ms = 50.0}, &forced);
  REQUIRE(k > 0);
  // The far one is the first forced (the near ones, once past the limit too, follow in
  // arrival order).
  CHECK(served[k].forced);
  for (std::size_t j = 0; j < k; ++j) CHECK_FALSE(served[j].forced);
  CHECK(forced == served.size() - k);
  CHECK(served[k].accepted_ms == 1.0);
  // It went at the first pick after its age passed the limit, and not before.
  CHECK(served[k].service.start_ms - 1.0 > 50.0);
  CHECK(served[k - 1].service.start_ms - 1.0 <= 50.0);
  CHECK(k < k_free);
}

TEST_CASE("depth 1 is the device without a queue, exactly", "[device][drive-queue]") {
  auto model = load_model("hp97560");
  std::vector<Cmd> cmds = random_reads(*model, 400, 5);
  std::mt19937_64 rng(9);
  std::exponential_distribution<double> gap(60.0 / 1000.0);
  Millis t = 0.0;
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    t += gap(rng);
    cmds[i].at = t;
    if (i % 3 == 0) cmds[i].op = Op::Write;
  }
  DeviceOptions opts;
  opts.jitter = parse_jitter("exp:0.05ms");
  VirtualDevice dev(load_model("hp97560"), opts);
  DriveQueue q(dev, {.depth = 1, .policy = "satf", .age_limit_ms = 100.0});
  const auto served = play(q, cmds);

  VirtualDevice plain(load_model("hp97560"), opts);
  REQUIRE(served.size() == cmds.size());
  std::size_t waited = 0;
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    const Service s = plain.serve(cmds[i].at, cmds[i].op, cmds[i].offset, cmds[i].length);
    INFO("command " << i);
    REQUIRE(served[i].tag == i);
    CHECK(served[i].service.seq == s.seq);
    CHECK(served[i].service.arrival_ms == s.arrival_ms);
    CHECK(served[i].service.start_ms == s.start_ms);
    CHECK(served[i].service.completion_ms == s.completion_ms);
    CHECK(served[i].service.jitter_ms == s.jitter_ms);
    CHECK(served[i].service.cost.rotation_ms == s.cost.rotation_ms);
    waited += s.wait_ms() > 0;
  }
  CHECK(waited > 50);  // the load was real: many waited behind another
  CHECK(q.forced() == 0);
}

TEST_CASE("commands beyond the depth wait in arrival order", "[device][drive-queue]") {
  auto model = load_model("hp97560");
  std::vector<Cmd> cmds = random_reads(*model, 16, 3);
  VirtualDevice dev(load_model("hp97560"));
  DriveQueue q(dev, {.depth = 4, .policy = "satf"});
  for (std::uint64_t i = 0; i < cmds.size(); ++i)
    q.submit(i, 0.0, cmds[i].op, cmds[i].offset, cmds[i].length);
  CHECK(q.held() == 4);
  CHECK(q.waiting() == 12);
  q.start(0.0);
  CHECK(q.held() == 3);  // the fourth is being served: it counts against the depth
  CHECK(q.waiting() == 12);
  std::vector<DriveQueue::Served> served;
  while (q.in_service()) {
    served.push_back(q.complete());
    q.start(served.back().service.completion_ms);
  }
  REQUIRE(served.size() == cmds.size());
  std::vector<Millis> accepted(cmds.size());
  for (const auto& s : served) accepted[s.tag] = s.accepted_ms;
  // The first four at once; then command k when the (k - 4)th in service order completed.
  for (std::size_t k = 0; k < 4; ++k) CHECK(accepted[k] == 0.0);
  for (std::size_t k = 4; k < cmds.size(); ++k) {
    INFO("command " << k);
    CHECK(accepted[k] == served[k - 4].service.completion_ms);
  }
  // ... and the drive never held more than four: each pick chose among at most four.
  for (const auto& s : served) CHECK(s.held <= 4);
}

TEST_CASE("a flush is not queued: it waits for the drive to empty and holds up the rest",
          "[device][drive-queue]") {
  auto model = load_model("hp97560");
  std::vector<Cmd> cmds = random_reads(*model, 6, 8);
  cmds.insert(cmds.begin() + 3, Cmd{0.0, Op::Flush, 0, 0});
  VirtualDevice dev(load_model("hp97560"));
  DriveQueue q(dev, {.depth = 32, .policy = "satf"});
  const auto served = play(q, cmds);
  REQUIRE(served.size() == 7);
  // The three before the flush (in any order), then the flush, then the three after it.
  std::vector<std::uint64_t> before, after;
  for (std::size_t k = 0; k < 3; ++k) before.push_back(served[k].tag);
  std::sort(before.begin(), before.end());
  CHECK(before == std::vector<std::uint64_t>{0, 1, 2});
  CHECK(served[3].tag == 3);
  CHECK(served[3].accepted_ms == served[2].service.completion_ms);
  for (std::size_t k = 4; k < 7; ++k) {
    CHECK(served[k].tag > 3);
    CHECK(served[k].accepted_ms == served[3].service.completion_ms);
  }
}

TEST_CASE("a bad drive queue is refused with what was wrong", "[device][drive-queue]") {
  VirtualDevice dev(load_model("hp97560"));
  CHECK_THROWS_AS(DriveQueue(dev, {.depth = 32, .policy = "nosuch"}), SpecError);
  CHECK_THROWS_WITH(DriveQueue(dev, {.depth = 0}), Catch::Contains("depth"));
  CHECK_THROWS_WITH(DriveQueue(dev, {.depth = 4, .policy = "fcfs", .age_limit_ms = 0.0}),
                    Catch::Contains("age limit"));
  DriveQueue q(dev, {.depth = 4});
  CHECK_THROWS_AS(q.submit(0, 0.0, Op::Read, dev.model().capacity_bytes(), 512), ModelError);
  CHECK(q.idle());
}
