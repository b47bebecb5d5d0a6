// Aligned bounce buffers for O_DIRECT: nbdkit's request buffers have no particular
// alignment, so direct I/O goes through these (registered with the ring, so the kernel
// need not pin pages on every request: READ_FIXED / WRITE_FIXED).
#pragma once

#include <sys/uio.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace disksched::uring {

class BouncePool {
 public:
  // `count` buffers of `bytes` each (a multiple of 4096), page aligned. Throws
  // std::system_error if the memory cannot be had.
  BouncePool(std::uint32_t count, std::uint32_t bytes);
  ~BouncePool();
  BouncePool(const BouncePool&) = delete;
  BouncePool& operator=(const BouncePool&) = delete;

  std::uint32_t buffer_bytes() const { return bytes_; }
  char* buffer(int index) const { return base_ + static_cast<std::size_t>(index) * bytes_; }
  // For io_uring_register_buffers.
  std::vector<iovec> iovecs() const;

  // Waits until at least one buffer is free, then takes up to `want` (>= 1).
  std::vector<int> acquire(std::uint32_t want);
  void release(const std::vector<int>& indices);

 private:
  char* base_ = nullptr;
  std::size_t mapped_ = 0;
  std::uint32_t count_, bytes_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<int> free_;
};

// Holds buffers for a scope.
class BounceLease {
 public:
  BounceLease(BouncePool& pool, std::uint32_t want) : pool_(pool), idx_(pool.acquire(want)) {}
  ~BounceLease() { pool_.release(idx_); }
  BounceLease(const BounceLease&) = delete;
  BounceLease& operator=(const BounceLease&) = delete;
  const std::vector<int>& indices() const { return idx_; }

 private:
  BouncePool& pool_;
  std::vector<int> idx_;
};

}  // namespace disksched::uring
