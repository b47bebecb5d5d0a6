#include "tools/extract/block_target.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/extract/clock.hpp"
#include "tools/extract/writable.hpp"

namespace disksched::extract {
namespace {

constexpr std::size_t kAlign = 4096;

[[noreturn]] void sys_fail(const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", what, std::strerror(errno)));
}

}  // namespace

BlockTarget::BlockTarget(const std::string& path,
                         std::optional<std::pair<std::uint64_t, std::uint64_t>> writable)
    : HostTarget(path) {
  // O_DSYNC makes every write probe reach the medium (FUA), even with a write cache on.
  const int flags = (writable ? O_RDWR | O_DSYNC : O_RDONLY) | O_DIRECT | O_CLOEXEC;
  fd_ = ::open(path.c_str(), flags);
  if (fd_ < 0) {
    if (errno == EINVAL)
      throw std::runtime_error(fmt::format(
          "{}: the file system does not support O_DIRECT; extraction needs uncached I/O", path));
    sys_fail(fmt::format("cannot open {}", path));
  }
  struct stat st {};
  if (fstat(fd_, &st) != 0) sys_fail(fmt::format("cannot stat {}", path));
  block_ = S_ISBLK(st.st_mode);
  std::uint64_t bytes = 0;
  if (block_) {
    int pbs = 0;
    if (ioctl(fd_, BLKPBSZGET, &pbs) == 0 && pbs > 0) sector_ = static_cast<std::uint32_t>(pbs);
    if (ioctl(fd_, BLKGETSIZE64, &bytes) != 0) sys_fail(fmt::format("{}: BLKGETSIZE64", path));
  } else if (S_ISREG(st.st_mode)) {
    bytes = static_cast<std::uint64_t>(st.st_size);
  } else {
    throw std::runtime_error(fmt::format("{} is neither a block device nor a regular file", path));
  }
  sectors_ = bytes / sector_;
  buf_bytes_ = std::max<std::size_t>(kAlign, 64 * std::size_t{sector_});
  if (posix_memalign(&buf_, kAlign, buf_bytes_) != 0) throw std::bad_alloc();
  std::memset(buf_, 0, buf_bytes_);
  if (writable) {
    const auto [start, len] = keep_writable(*writable);
    for (std::uint64_t off = 0; off < len; off += buf_bytes_) {
      const std::size_t n = std::min<std::uint64_t>(buf_bytes_, len - off);
      if (pread(fd_, buf_, n, static_cast<off_t>(start + off)) != static_cast<ssize_t>(n))
        sys_fail(fmt::format("{}: reading the writable range", path));
      std::memcpy(saved_.data() + off, buf_, n);
    }
  }
}

BlockTarget::~BlockTarget() {
  if (fd_ >= 0) ::close(fd_);
  if (buffered_fd_ >= 0) ::close(buffered_fd_);
  std::free(buf_);
}

template <typename Io>
ProbeResult BlockTarget::timed(const char* op, std::uint64_t lba, Io&& io) {
  bool ok = false;
  const ProbeResult r = timed_probe(io, &ok);
  if (!ok) sys_fail(fmt::format("{}: {} at sector {}", name_, op, lba));
  return r;
}

ProbeResult BlockTarget::read(std::uint64_t lba, std::uint32_t count) {
  const std::size_t n = std::size_t{count} * sector_;
  if (n > buf_bytes_ || lba + count > sectors_)
    throw std::runtime_error(fmt::format("{}: read of {} sectors at {} is out of range", name_, count, lba));
  return timed("read", lba, [&] {
    return pread(fd_, buf_, n, static_cast<off_t>(lba * sector_)) == static_cast<ssize_t>(n);
  });
}

ProbeResult BlockTarget::write(std::uint64_t lba, std::uint32_t count) {
  return put(fd_, lba, count);
}

std::optional<ProbeResult> BlockTarget::write_buffered(std::uint64_t lba, std::uint32_t count) {
  if (buffered_fd_ < 0) {
    if (!writable_) return std::nullopt;
    buffered_fd_ = ::open(name_.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    if (buffered_fd_ < 0) return std::nullopt;
  }
  return put(buffered_fd_, lba, count);
}

ProbeResult BlockTarget::put(int fd, std::uint64_t lba, std::uint32_t count) {
  const std::size_t n = std::size_t{count} * sector_;
  std::memcpy(buf_, saved_at(lba, count), n);
  return timed("write", lba, [&] {
    return pwrite(fd, buf_, n, static_cast<off_t>(lba * sector_)) == static_cast<ssize_t>(n);
  });
}

}  // namespace disksched::extract
