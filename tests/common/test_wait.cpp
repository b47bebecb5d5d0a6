#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "common/clock.hpp"
#include "common/futex.hpp"
#include "common/wait.hpp"

using namespace disksched;

// Ordering only, no timing claims: a wait never returns before its deadline.
TEST_CASE("wait: never returns before the deadline", "[wait]") {
  const std::int64_t t = monotonic_ns() + 2'000'000;
  sleep_then_spin_until_ns(t, 500'000);
  CHECK(monotonic_ns() >= t);
  const std::int64_t t2 = monotonic_ns() + 100'000;
  spin_until_ns(t2);
  CHECK(monotonic_ns() >= t2);
  sleep_until_ns(0);  // long past: returns at once
}

TEST_CASE("futex: a waiter sees the value its waker stored", "[futex]") {
  std::atomic<std::uint32_t> state{0};
  std::thread waiter([&] {
    while (state.load() == 0) futex_wait(state, 0);
  });
  state.store(1);
  futex_wake(state);
  waiter.join();
  CHECK(state.load() == 1);
  futex_wait(state, 0);  // value differs: returns at once
}
