#include "common/wait.hpp"

#include <time.h>

#include <cerrno>

#include "common/clock.hpp"

namespace disksched {

void sleep_until_ns(std::int64_t t_ns) {
  if (t_ns <= monotonic_ns()) return;
  const timespec ts{static_cast<time_t>(t_ns / 1'000'000'000),
                    static_cast<long>(t_ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

void spin_until_ns(std::int64_t t_ns) {
  while (monotonic_ns() < t_ns) cpu_relax();
}

void sleep_then_spin_until_ns(std::int64_t t_ns, std::int64_t spin_ns) {
  sleep_until_ns(t_ns - (spin_ns > 0 ? spin_ns : 0));
  spin_until_ns(t_ns);
}

}  // namespace disksched
