// The clock the emulated device serves by. The plugin uses MonotonicClock; the unit
// tests inject ManualClock and check the device's timing exactly, in virtual time.
#pragma once

#include <cstdint>
#include <functional>

namespace disksched::diskemu {

// Nanoseconds on CLOCK_MONOTONIC (or on a test's virtual time line).
using Nanos = std::int64_t;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Nanos now_ns() = 0;
  // Returns true no earlier than `deadline` and as soon after it as the clock can, or
  // false early if the wait was abandoned (the server is shutting down). A clock that
  // busy-waits the last stretch spins for at most `max_spin_ns` of it.
  virtual bool sleep_until(Nanos deadline, Nanos max_spin_ns) = 0;
  bool sleep_until(Nanos deadline) { return sleep_until(deadline, INT64_MAX); }
};

// CLOCK_MONOTONIC. Sleeps with clock_nanosleep(TIMER_ABSTIME) until `spin_ns` before the
// deadline, then spins on clock_gettime: on this class of machine a timed wake-up is
// tens of microseconds late (p99 ~100 us), and the spin takes that out. The calling
// thread's timer slack is set to `timer_slack_ns` on its first sleep (0 leaves the
// kernel's default of 50 us alone).
//
// Long waits (more than `coarse_margin_ns` beyond the spin) first go through
// `coarse_sleep(ns)`, if given, which may return false to abandon the wait: the plugin
// passes nbdkit_nanosleep so a shutdown or a disconnect is not held up by a slow device.
//
// With `rt_priority` > 0 a thread that waits here is switched to SCHED_FIFO at that
// priority (from its first wait on, for good: it must also send the reply promptly), so
// that on a busy machine it gets a CPU the moment its timer fires instead of queueing
// behind other work. Needs CAP_SYS_NICE (or RLIMIT_RTPRIO); `rt_ok()` says whether it
// is granted.
class MonotonicClock final : public Clock {
 public:
  using CoarseSleep = std::function<bool(Nanos duration)>;

  explicit MonotonicClock(Nanos spin_ns = 200'000, Nanos timer_slack_ns = 1,
                          CoarseSleep coarse_sleep = {}, Nanos coarse_margin_ns = 2'000'000,
                          int rt_priority = 0);
  // Checks that the real-time priority can be had (true when none was asked for).
  bool rt_ok() const;
  Nanos now_ns() override;
  using Clock::sleep_until;
  bool sleep_until(Nanos deadline, Nanos max_spin_ns) override;

 private:
  Nanos spin_ns_;
  Nanos timer_slack_ns_;
  CoarseSleep coarse_sleep_;
  Nanos coarse_margin_ns_;
  int rt_priority_;
};

// Virtual time for tests: time stands still until advanced, and sleeping jumps to the
// deadline at once. Single-threaded use only.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Nanos start = 0) : now_(start) {}
  Nanos now_ns() override { return now_; }
  using Clock::sleep_until;
  bool sleep_until(Nanos deadline, Nanos /*max_spin_ns*/) override {
    if (deadline > now_) now_ = deadline;
    return true;
  }
  void set(Nanos t) { now_ = t; }
  void advance(Nanos d) { now_ += d; }

 private:
  Nanos now_;
};

}  // namespace disksched::diskemu
