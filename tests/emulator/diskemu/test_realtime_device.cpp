// The virtual device on an injected clock: real-time mapping (timescale), waits that end
// exactly at the modelled completion, FIFO admission, statistics.
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "emulator/diskemu/realtime_device.hpp"

using namespace disksched;
using namespace disksched::diskemu;

namespace {

constexpr Nanos origin = 1'000'000'000'000;   // an arbitrary point on the monotonic clock
constexpr Nanos ms = 1'000'000;

// Time stands still (many threads may read it); sleeping returns at once.
class FrozenClock final : public Clock {
 public:
  explicit FrozenClock(Nanos t) : t_(t) {}
  Nanos now_ns() override { return t_; }
  using Clock::sleep_until;
  bool sleep_until(Nanos, Nanos) override { return true; }

 private:
  const Nanos t_;
};

// A 10 ms fixed device played on a manual clock at `scale`, with statistics.
struct TenMsDevice {
  explicit TenMsDevice(double scale) : rt(dev, clock, Timebase(origin, scale), &stats) {}
  VirtualDevice dev{load_model("fixed:ms=10")};
  ManualClock clock{origin};
  DeviceStats stats;
  RealTimeDevice rt;
};

}  // namespace

TEST_CASE("a request completes exactly at the modelled time, scaled by timescale", "[diskemu]") {
  for (double scale : {1.0, 0.5, 0.01, 3.0}) {
    TenMsDevice d(scale);
    auto& [dev, clock, stats, rt] = d;
    clock.advance(2 * ms);
    const Admission a = rt.admit(Op::Read, 0, 4096);
    CHECK(a.arrival_ns == origin + 2 * ms);
    CHECK(a.service.arrival_ms == Approx(2.0 / scale).epsilon(1e-12));
    // 2 ms of real time to arrive, then 10 device ms; rounded up, never early.
    const double exact = 2.0 * ms + 10.0 * scale * ms;
    CHECK(a.due_ns - origin >= exact);
    CHECK(a.due_ns - origin <= exact + 1);
    CHECK(rt.complete(a) == 0);
    CHECK(clock.now_ns() == a.due_ns);
    CHECK(stats.requests() == 1);
    CHECK(stats.to_json()["service_ms_mean"] == 10.0);
  }
}

TEST_CASE("requests admitted while the device is busy queue behind it", "[diskemu]") {
  TenMsDevice d(0.5);
  auto& [dev, clock, stats, rt] = d;
  const Admission a = rt.admit(Op::Read, 0, 512);
  clock.advance(1 * ms);                                  // device time 2 ms
  const Admission b = rt.admit(Op::Write, 512, 512);
  const Admission c = rt.admit(Op::Read, 0, 512);
  CHECK(a.due_ns == origin + 5 * ms);
  CHECK(b.service.start_ms == 10.0);
  CHECK(b.service.wait_ms() == Approx(8.0));
  CHECK(b.due_ns == origin + 10 * ms);
  CHECK(c.due_ns == origin + 15 * ms);
  // The final busy-wait stays within the gap since the previous completion.
  CHECK(a.spin_budget_ns == 5 * ms);    // idle device: from the arrival
  CHECK(b.spin_budget_ns == 5 * ms);    // queued: from a's completion
  CHECK(c.spin_budget_ns == 5 * ms);
  CHECK(rt.complete(a) == 0);
  CHECK(rt.complete(b) == 0);
  CHECK(rt.complete(c) == 0);
  const auto j = stats.to_json();
  CHECK(j["requests"] == 3);
  CHECK(j["by_op"]["write"] == 1);
  CHECK(j["wait_ms_mean"].get<double>() == Approx((0.0 + 8.0 + 18.0) / 3));
}

TEST_CASE("lateness is how far past the due time the wait ended", "[diskemu]") {
  TenMsDevice d(1.0);
  auto& [dev, clock, stats, rt] = d;
  const Admission a = rt.admit(Op::Read, 0, 512);
  clock.set(a.due_ns + 37'000);   // the thread was descheduled past its deadline
  CHECK(rt.complete(a) == 37'000);
  CHECK(stats.to_json()["lateness_us"]["max"] == 37.0);
}

TEST_CASE("the in-order operation runs at admission; a failure does not block the FIFO",
          "[diskemu]") {
  VirtualDevice dev(load_model("fixed:ms=1"));
  ManualClock clock(origin);
  RealTimeDevice rt(dev, clock, Timebase(origin, 1.0));
  std::vector<int> order;
  const Admission a = rt.admit(Op::Write, 0, 512, [&] { order.push_back(1); });
  CHECK_THROWS_AS(rt.admit(Op::Write, 0, 512, [] { throw std::runtime_error("EIO"); }),
                  std::runtime_error);
  const Admission c = rt.admit(Op::Write, 0, 512, [&] { order.push_back(3); });
  CHECK(order == std::vector<int>{1, 3});
  CHECK(c.service.seq == 2);   // the failed request did occupy the device
  CHECK(rt.complete(a) == 0);
  CHECK(rt.complete(c) == 0);
  // A request beyond the device is refused by the model and also lets the next one in.
  CHECK_THROWS_AS(rt.admit(Op::Read, dev.model().capacity_bytes(), 512), ModelError);
  CHECK(rt.admit(Op::Read, 0, 512).service.seq == 3);
}

TEST_CASE("many threads: every request gets its own slot, none overlaps", "[diskemu]") {
  // A frozen clock: every request arrives at once, so device time is a pure count of the
  // requests before it, whichever thread wins each ticket.
  VirtualDevice dev(load_model("fixed:ms=10"));
  FrozenClock clock(origin);
  RealTimeDevice rt(dev, clock, Timebase(origin, 1.0));
  constexpr int threads = 8, per_thread = 250;
  std::vector<std::vector<Admission>> got(threads);
  std::vector<std::thread> pool;
  std::atomic<int> in_turn{0}, overlap{0};
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i)
        got[t].push_back(rt.admit(Op::Write, 0, 512, [&] {
          if (in_turn.fetch_add(1) != 0) overlap.fetch_add(1);
          in_turn.fetch_sub(1);
        }));
    });
  for (auto& th : pool) th.join();
  std::vector<Admission> all;
  for (auto& v : got) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end(),
            [](const Admission& x, const Admission& y) { return x.service.seq < y.service.seq; });
  REQUIRE(all.size() == threads * per_thread);
  CHECK(overlap == 0);
  for (std::size_t k = 0; k < all.size(); ++k) {
    REQUIRE(all[k].service.seq == k);
    REQUIRE(all[k].service.start_ms == 10.0 * k);
    REQUIRE(all[k].due_ns == origin + static_cast<Nanos>(k + 1) * 10 * ms);
  }
  // Within one thread, device order follows program order.
  for (auto& v : got)
    for (std::size_t i = 1; i < v.size(); ++i) REQUIRE(v[i].service.seq > v[i - 1].service.seq);
}

TEST_CASE("with a drive queue, requests waiting together are served in the policy's order",
          "[diskemu][drive-queue]") {
  // Twelve threads submit while a first request holds the mechanism (time stands still);
  // when it completes, the drive serves them one by one, each data operation in turn.
  const DriveQueueOptions opts{.depth = 32, .policy = "satf"};
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t i = 0; i < 13; ++i) offsets.push_back((i * 7919 % 1499) * 900'000ull);
  VirtualDevice dev(load_model("hp97560"));
  FrozenClock clock(origin);
  RealTimeDevice rt(dev, clock, Timebase(origin, 1.0), nullptr, opts);
  std::vector<std::uint64_t> order;  // appended in device order, under the device's lock
  const Admission first =
      rt.admit(Op::Read, offsets[0], 8192, [&] { order.push_back(offsets[0]); });
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < offsets.size(); ++i)
    threads.emplace_back([&, i] {
      const Admission a = rt.admit(Op::Read, offsets[i], 8192, [&] { order.push_back(offsets[i]); });
      rt.complete(a);
    });
  while (rt.queue_waiting() < offsets.size() - 1) std::this_thread::yield();
  rt.complete(first);
  for (auto& t : threads) t.join();

  // The same requests through the drive queue alone, in device time.
  VirtualDevice ref_dev(load_model("hp97560"));
  DriveQueue ref(ref_dev, opts);
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    ref.submit(i, 0.0, Op::Read, offsets[i], 8192);
    ref.start(0.0);
  }
  std::vector<std::uint64_t> expected;
  while (ref.in_service()) {
    const DriveQueue::Served s = ref.complete();
    expected.push_back(offsets[s.tag]);
    ref.start(s.service.completion_ms);
  }
  CHECK(order == expected);
  CHECK(rt.queue_counts().passed > 3);
  CHECK(dev.head().time_ms == ref_dev.head().time_ms);
}
