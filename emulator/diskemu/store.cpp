#include "emulator/diskemu/store.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <system_error>

#include <fmt/format.h>

namespace disksched::diskemu {

// ---- SparseMemoryStore ----

void SparseMemoryStore::read(void* buf, std::uint32_t count, std::uint64_t offset) {
  std::shared_lock lock(mutex_);
  auto* out = static_cast<char*>(buf);
  while (count > 0) {
    const std::uint64_t page = offset / page_bytes;
    const std::uint32_t in_page = offset % page_bytes;
    const std::uint32_t n = std::min<std::uint32_t>(count, page_bytes - in_page);
    auto it = pages_.find(page);
    if (it == pages_.end())
      std::memset(out, 0, n);
    else
      std::memcpy(out, it->second.get() + in_page, n);
    out += n;
    offset += n;
    count -= n;
  }
}

void SparseMemoryStore::write(const void* buf, std::uint32_t count, std::uint64_t offset) {
  std::unique_lock lock(mutex_);
  const auto* in = static_cast<const char*>(buf);
  while (count > 0) {
    const std::uint64_t page = offset / page_bytes;
    const std::uint32_t in_page = offset % page_bytes;
    const std::uint32_t n = std::min<std::uint32_t>(count, page_bytes - in_page);
    auto& p = pages_[page];
    if (!p) p.reset(new char[page_bytes]());   // value-initialised: zeros
    std::memcpy(p.get() + in_page, in, n);
    in += n;
    offset += n;
    count -= n;
  }
}

void SparseMemoryStore::zero(std::uint32_t count, std::uint64_t offset) {
  std::unique_lock lock(mutex_);
  while (count > 0) {
    const std::uint64_t page = offset / page_bytes;
    const std::uint32_t in_page = offset % page_bytes;
    const std::uint32_t n = std::min<std::uint32_t>(count, page_bytes - in_page);
    auto it = pages_.find(page);
    if (it != pages_.end()) {
      if (n == page_bytes)
        pages_.erase(it);
      else
        std::memset(it->second.get() + in_page, 0, n);
    }
    offset += n;
    count -= n;
  }
}

std::size_t SparseMemoryStore::pages_allocated() const {
  std::shared_lock lock(mutex_);
  return pages_.size();
}

// ---- FileStore ----

namespace {

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

FileStore::FileStore(const std::string& path, std::uint64_t size) : path_(path), size_(size) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("file={}: cannot open: {}", path, std::strerror(errno)));
  struct stat st;
  if (fstat(fd_, &st) < 0) {
    int e = errno;
    ::close(fd_);
    throw std::runtime_error(fmt::format("file={}: fstat: {}", path, std::strerror(e)));
  }
  std::string problem;
  if (S_ISBLK(st.st_mode)) {
    block_device_ = true;
    std::uint64_t bytes = 0;
    if (ioctl(fd_, BLKGETSIZE64, &bytes) < 0)
      problem = fmt::format("BLKGETSIZE64: {}", std::strerror(errno));
    else if (bytes < size)
      problem = fmt::format("the block device has {} bytes, the model needs {}", bytes, size);
  } else if (S_ISREG(st.st_mode)) {
    if (static_cast<std::uint64_t>(st.st_size) < size && ftruncate(fd_, static_cast<off_t>(size)) < 0)
      problem = fmt::format("cannot extend to {} bytes: {}", size, std::strerror(errno));
  } else {
    problem = "not a regular file or block device";
  }
  if (!problem.empty()) {
    ::close(fd_);
    throw std::runtime_error(fmt::format("file={}: {}", path, problem));
  }
}

FileStore::~FileStore() {
  if (fd_ >= 0) ::close(fd_);
}

void FileStore::read(void* buf, std::uint32_t count, std::uint64_t offset) {
  auto* p = static_cast<char*>(buf);
  while (count > 0) {
    ssize_t r = ::pread(fd_, p, count, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_errno(fmt::format("pread {}", path_));
    }
    if (r == 0) {  // the file shrank behind our back: what is not there is zero
      std::memset(p, 0, count);
      return;
    }
    p += r;
    offset += r;
    count -= r;
  }
}

void FileStore::write(const void* buf, std::uint32_t count, std::uint64_t offset) {
  const auto* p = static_cast<const char*>(buf);
  while (count > 0) {
    ssize_t r = ::pwrite(fd_, p, count, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_errno(fmt::format("pwrite {}", path_));
    }
    p += r;
    offset += r;
    count -= r;
  }
}

void FileStore::write_zeros(std::uint32_t count, std::uint64_t offset) {
  static const std::vector<char> zeros(1 << 20, 0);
  while (count > 0) {
    std::uint32_t n = std::min<std::uint32_t>(count, zeros.size());
    write(zeros.data(), n, offset);
    offset += n;
    count -= n;
  }
}

void FileStore::zero(std::uint32_t count, std::uint64_t offset) {
  if (block_device_) {
    // Zeroes the range (with unmap where the device can), reads return zeros afterwards.
    std::uint64_t range[2] = {offset, count};
    if (ioctl(fd_, BLKZEROOUT, range) == 0) return;
    write_zeros(count, offset);
    return;
  }
  if (can_punch_) {
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                  count) == 0)
      return;
    if (errno != EOPNOTSUPP) throw_errno(fmt::format("fallocate punch hole {}", path_));
    can_punch_ = false;
  }
  write_zeros(count, offset);
}

void FileStore::sync() {
  if (fdatasync(fd_) < 0) throw_errno(fmt::format("fdatasync {}", path_));
}

}  // namespace disksched::diskemu
