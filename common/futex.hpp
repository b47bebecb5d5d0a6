// Raw futex wait and wake on a 32-bit atomic. libstdc++ 12's std::atomic::wait can miss a
// notify_one and sleep for milliseconds (fixed in GCC 13), which would stall a device.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace disksched {

// Sleeps while `a` holds `expected` (returns at once if it does not; may wake spuriously,
// so call it in a loop that rechecks the condition).
inline void futex_wait(std::atomic<std::uint32_t>& a, std::uint32_t expected) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&a), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

// Wakes up to `n` threads sleeping in futex_wait on `a`.
inline void futex_wake(std::atomic<std::uint32_t>& a, int n = 1) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&a), FUTEX_WAKE_PRIVATE, n, nullptr,
          nullptr, 0);
}

}  // namespace disksched
