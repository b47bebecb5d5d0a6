// The Dispatcher with real threads, as nbdkit's workers use it: every request is served
// exactly once, never more than `depth` at the device, overlapping requests reach the
// device in their order of arrival, and switching schedulers under load loses nothing.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/filter/dispatcher.hpp"
#include "predictor/lbn_model.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<Dispatcher> make_dispatcher(const char* spec, unsigned depth) {
  auto model = std::make_unique<LbnModel>(64ull << 20);
  auto s = make_scheduler(spec, *model);
  Dispatcher::Options o;
  o.core.depth = depth;
  o.core.fixed_delta = 0.0;
  return std::make_unique<Dispatcher>(std::move(model), std::move(s), o, steady_ns);
}

}  // namespace

TEST_CASE("dispatcher: many threads, depth respected, overlap order kept",
          "[filter][dispatcher]") {
  const unsigned depth = GENERATE(1u, 4u);
  auto d = make_dispatcher("sstf", depth);
  constexpr int kThreads = 16, kPerThread = 200, kBlocks = 8;
  std::atomic<int> at_device{0}, max_at_device{0};
  std::mutex mu;
  // For each 4 KiB block: the ids of the writes to it, in the order they ran.
  std::map<std::uint64_t, std::vector<std::uint64_t>> ran;
  std::vector<std::thread> threads;
  std::atomic<int> served{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::uint64_t block = static_cast<std::uint64_t>((t * 7 + i * 3) % kBlocks);
        const Op op = (i % 3 == 0) ? Op::Read : Op::Write;
        auto rec = LiveRecord::arriving(op, block * 4096, 4096, 0, {});
        d->enter(rec);
        const int now = ++at_device;
        int seen = max_at_device.load();
        while (now > seen && !max_at_device.compare_exchange_weak(seen, now)) {
        }
        if (op == Op::Write) {
          std::lock_guard lock(mu);
          ran[block].push_back(rec.id());
        }
        std::this_thread::yield();
        --at_device;
        d->leave(rec, true);
        ++served;
      }
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(served == kThreads * kPerThread);
  REQUIRE(max_at_device.load() <= static_cast<int>(depth));
  // Ids are handed out in arrival order: writes to one block ran in that order.
  for (const auto& [block, order] : ran) {
    INFO("block " << block);
    REQUIRE(std::is_sorted(order.begin(), order.end()));
  }
  const auto snap = d->snapshot();
  REQUIRE(snap.stats.completed == kThreads * kPerThread);
  REQUIRE(snap.queued == 0);
  REQUIRE(snap.in_flight == 0);
}

TEST_CASE("dispatcher: switching schedulers under load loses and fails nothing",
          "[filter][dispatcher]") {
  auto d = make_dispatcher("fcfs", 1);
  constexpr int kThreads = 12, kPerThread = 150;
  std::atomic<bool> done{false}, switching{false};
  std::atomic<int> served{0};
  std::vector<std::thread> threads;
  std::thread switcher([&] {
    const char* specs[] = {"sstf", "look", "clook", "fcfs", "sswt", "vr"};
    int k = 0;
    while (!done) {
      d->switch_scheduler(specs[k++ % 6]);
      switching = true;
      std::this_thread::yield();
    }
  });
  while (!switching) std::this_thread::yield();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::uint64_t off = static_cast<std::uint64_t>((t * 131 + i * 17) % 4096) * 4096;
        auto rec = LiveRecord::arriving(Op::Read, off, 4096, 0, {});
        d->enter(rec);
        d->leave(rec, true);
        ++served;
      }
    });
  }
  for (auto& th : threads) th.join();
  done = true;
  switcher.join();
  REQUIRE(served == kThreads * kPerThread);
  const auto snap = d->snapshot();
  REQUIRE(snap.stats.completed == kThreads * kPerThread);
  REQUIRE(snap.stats.failed == 0);
  REQUIRE(snap.stats.switches > 0);
  REQUIRE(snap.queued == 0);
}

TEST_CASE("dispatcher: a request beyond the device throws and leaves nothing behind",
          "[filter][dispatcher]") {
  auto d = make_dispatcher("fcfs", 1);
  auto beyond = LiveRecord::arriving(Op::Read, 64ull << 20, 4096, 0, {});
  REQUIRE_THROWS_AS(d->enter(beyond), ModelError);
  auto rec = LiveRecord::arriving(Op::Read, 0, 4096, 0, {});
  d->enter(rec);
  d->leave(rec, false);
  const auto snap = d->snapshot();
  REQUIRE(snap.stats.arrived == 1);
  REQUIRE(snap.stats.failed == 1);
  REQUIRE(snap.in_flight == 0);
}

