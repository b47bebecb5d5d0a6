#include "tools/extract/clock.hpp"

#include <sys/resource.h>
#include <time.h>

namespace disksched::extract {

Millis monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

void wait_until_monotonic(Millis t_ms) {
  // Wake-up latency on a busy 2-core VM is up to a millisecond or so: sleep until
  // 2 ms before, then spin.
  const Millis now = monotonic_ms();
  if (t_ms - now > 2.0) {
    const Millis wake = t_ms - 2.0;
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(wake / 1e3);
    ts.tv_nsec = static_cast<long>((wake - static_cast<double>(ts.tv_sec) * 1e3) * 1e6);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
  }
  while (monotonic_ms() < t_ms) {
  }
}

long involuntary_switches() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_nivcsw;
}

}  // namespace disksched::extract
