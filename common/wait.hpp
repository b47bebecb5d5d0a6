// Waiting for a moment on the monotonic clock: sleep until shortly before it (the wake-up
// is late by up to a millisecond on a busy machine), then spin to it.
#pragma once

#include <cstdint>

namespace disksched {

// A pause for a spinning loop, kind to the sibling hyperthread.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Sleeps until monotonic time `t_ns` (absolute, so a signal does not add up; an EINTR
// sleeps again). Returns at once when `t_ns` has passed.
void sleep_until_ns(std::int64_t t_ns);
// Spins until monotonic time `t_ns`.
void spin_until_ns(std::int64_t t_ns);
// Sleeps until `spin_ns` before `t_ns`, then spins to it.
void sleep_then_spin_until_ns(std::int64_t t_ns, std::int64_t spin_ns);

}  // namespace disksched
