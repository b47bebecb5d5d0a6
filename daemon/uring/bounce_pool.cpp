#include "daemon/uring/bounce_pool.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace disksched::uring {

BouncePool::BouncePool(std::uint32_t count, std::uint32_t bytes) : count_(count), bytes_(bytes) {
  mapped_ = static_cast<std::size_t>(count) * bytes;
  void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::system_error(errno, std::generic_category(), "mmap of the bounce buffers");
  base_ = static_cast<char*>(p);
  free_.reserve(count);
  for (int i = static_cast<int>(count) - 1; i >= 0; --i) free_.push_back(i);
}

BouncePool::~BouncePool() { munmap(base_, mapped_); }

std::vector<iovec> BouncePool::iovecs() const {
  std::vector<iovec> v(count_);
  for (std::uint32_t i = 0; i < count_; ++i) v[i] = {buffer(static_cast<int>(i)), bytes_};
  return v;
}

std::vector<int> BouncePool::acquire(std::uint32_t want) {
  std::unique_lock lock(mutex_);
  freed_.wait(lock, [&] { return !free_.empty(); });
  const std::size_t n = std::min<std::size_t>(std::max<std::uint32_t>(want, 1), free_.size());
  std::vector<int> got(free_.end() - static_cast<std::ptrdiff_t>(n), free_.end());
  free_.resize(free_.size() - n);
  return got;
}

void BouncePool::release(const std::vector<int>& indices) {
  {
    std::lock_guard lock(mutex_);
    free_.insert(free_.end(), indices.begin(), indices.end());
  }
  freed_.notify_all();
}

}  // namespace disksched::uring
