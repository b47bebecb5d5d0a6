#include "emulator/diskemu/clock.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "common/clock.hpp"
#include "common/wait.hpp"

namespace disksched::diskemu {

MonotonicClock::MonotonicClock(Nanos spin_ns, Nanos timer_slack_ns, CoarseSleep coarse_sleep,
                               Nanos coarse_margin_ns, int rt_priority)
    : spin_ns_(spin_ns < 0 ? 0 : spin_ns),
      timer_slack_ns_(timer_slack_ns),
      coarse_sleep_(std::move(coarse_sleep)),
      coarse_margin_ns_(coarse_margin_ns),
      rt_priority_(rt_priority) {}

namespace {

// Switches the calling thread to SCHED_FIFO at `priority`; true if it worked.
bool go_realtime(int priority) {
  sched_param p{};
  p.sched_priority = priority;
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0;
}

}  // namespace

bool MonotonicClock::rt_ok() const {
  if (rt_priority_ <= 0) return true;
  // Try it on a short-lived thread so the caller's own scheduling is left alone.
  bool ok = false;
  std::thread([&] { ok = go_realtime(rt_priority_); }).join();
  return ok;
}

Nanos MonotonicClock::now_ns() { return monotonic_ns(); }

bool MonotonicClock::sleep_until(Nanos deadline, Nanos max_spin_ns) {
  // Timer slack and scheduling are per thread; nbdkit's worker threads are not ours to
  // set up, so set them the first time each one waits. A real-time thread stays so: it
  // must also send the reply promptly, which nbdkit does after we return.
  thread_local bool thread_set_up = false;
  if (!thread_set_up) {
    if (timer_slack_ns_ > 0) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(timer_slack_ns_));
    if (rt_priority_ > 0) go_realtime(rt_priority_);
    thread_set_up = true;
  }
  const Nanos wake = deadline - std::min(spin_ns_, std::max<Nanos>(max_spin_ns, 0));
  if (coarse_sleep_) {
    // Interruptible, but no more precise than a plain timed sleep: stop it a margin
    // early and let the absolute sleep and the spin finish.
    for (Nanos left = wake - coarse_margin_ns_ - monotonic_ns(); left > 0;
         left = wake - coarse_margin_ns_ - monotonic_ns())
      if (!coarse_sleep_(left)) return false;
  }
  sleep_until_ns(wake);  // an EINTR (SIGUSR1 for the stats) sleeps again
  spin_until_ns(deadline);
  return true;
}

}  // namespace disksched::diskemu
