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
  // Past the limit it goes before the younger near ones, but they are overdue a
  // millisecond later and nearer: by positioning among the overdue they go first, until
  // it is past twice the limit (then the oldest goes next).
  CHECK(served[k].forced);
  CHECK(forced > 0);
  CHECK(served[k].accepted_ms == 1.0);
  CHECK(served[k].service.start_ms - 1.0 > 100.0);
  CHECK(served[k - 1].service.start_ms - 1.0 <= 100.0);
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

TEST_CASE("the firmware reorders only the oldest commands of its window",
          "[device][drive-queue]") {
  auto model = load_model("hp97560");
  std::vector<Cmd> cmds = random_reads(*model, 25, 11);
  for (std::size_t i = 1; i < cmds.size(); ++i) cmds[i].at = 1.0;
  auto order = [&](unsigned window) {
    VirtualDevice dev(load_model("hp97560"));
    DriveQueue q(dev, {.depth = 32, .policy = "satf", .window = window});
    std::vector<std::uint64_t> tags;
    for (const auto& s : play(q, cmds)) tags.push_back(s.tag);
    return tags;
  };
  // A window of one is arrival order.
  const auto one = order(1);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(one[i] == i);
  // A window of four: each pick is among the four oldest not yet served, and it does
  // reorder (all 24 held at once: SATF alone would go far from arrival order).
  const auto four = order(4);
  REQUIRE(four.size() == cmds.size());
  std::vector<bool> done(cmds.size(), false);
  std::size_t reordered = 0;
  for (const std::uint64_t tag : four) {
    std::size_t older_waiting = 0;
    for (std::uint64_t t = 0; t < tag; ++t) older_waiting += !done[t];
    INFO("tag " << tag);
    CHECK(older_waiting < 4);
    reordered += older_waiting > 0;
    done[tag] = true;
  }
  CHECK(reordered > 5);
  CHECK(order(0) != four);
}

TEST_CASE("overdue commands go by positioning among themselves; past twice the limit, oldest first",
          "[device][drive-queue]") {
  // 25 reads held from t <= 1 and a limit of 60 ms: from 61 ms every held command is
  // overdue. Oldest-first would then serve in arrival order, as FCFS, for good: what
  // made a deep queue collapse. The firmware instead takes the shortest to position for
  // among them, until one is past twice the limit (121 ms): from then the oldest goes.
  auto model = load_model("hp97560");
  std::vector<Cmd> cmds = random_reads(*model, 25, 11);
  for (std::size_t i = 1; i < cmds.size(); ++i) cmds[i].at = 1.0;
  VirtualDevice dev(load_model("hp97560"));
  DriveQueue q(dev, {.depth = 32, .policy = "satf", .age_limit_ms = 60.0});
  const auto served = play(q, cmds);
  REQUIRE(served.size() == cmds.size());
  const std::uint32_t sb = model->sector_bytes();
  std::vector<bool> done(cmds.size(), false);
  done[served[0].tag] = true;
  std::size_t by_position = 0, oldest_first = 0;
  for (std::size_t k = 1; k < served.size(); ++k) {
    const DriveQueue::Served& s = served[k];
    const Millis pick = served[k - 1].service.completion_ms;
    std::uint64_t oldest = cmds.size();
    for (std::uint64_t t = 0; t < cmds.size() && oldest == cmds.size(); ++t)
      if (!done[t]) oldest = t;
    INFO("pick " << k << " at " << pick << " ms: tag " << s.tag);
    if (pick - 1.0 > 120.0) {
      CHECK(s.forced);
      CHECK(s.tag == oldest);
      ++oldest_first;
    } else if (pick - 1.0 > 60.0) {
      CHECK(s.forced);
      // The least positioning from where the last command left the head, of all held.
      HeadState from = served[k - 1].service.cost.end;
      from.time_ms = pick;
      auto positioning = [&](std::uint64_t t) {
        return model->positioning_ms(from, model->locate(cmds[t].offset / sb, cmds[t].length / sb, Op::Read));
      };
      for (std::uint64_t t = 0; t < cmds.size(); ++t)
        if (!done[t] && t != 0) CHECK(positioning(s.tag) <= positioning(t));
      by_position += s.tag != oldest;
    }
    done[s.tag] = true;
  }
  CHECK(by_position > 0);
  CHECK(oldest_first > 0);
}
