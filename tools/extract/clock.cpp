#include "tools/extract/clock.hpp"

#include <sys/resource.h>
#include <time.h>

#include <cmath>

#include "common/clock.hpp"
#include "common/wait.hpp"

namespace disksched::extract {

void wait_until_monotonic(Millis t_ms) {
  // Wake-up latency on a busy 2-core VM is up to a millisecond or so: sleep until
  // 2 ms before, then spin.
  sleep_then_spin_until_ns(static_cast<std::int64_t>(std::ceil(t_ms * 1e6)), 2'000'000);
}

long involuntary_switches() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_nivcsw;
}

}  // namespace disksched::extract
