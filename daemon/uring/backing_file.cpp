#include "daemon/uring/backing_file.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched::uring {

namespace {

// /sys/dev/block/MAJ:MIN/queue/rotational, or its parent's for a partition.
bool sysfs_rotational(dev_t dev) {
  const std::string base = fmt::format("/sys/dev/block/{}:{}", major(dev), minor(dev));
  for (const char* rel : {"/queue/rotational", "/../queue/rotational"}) {
    std::ifstream f(base + rel);
    int v;
    if (f >> v) return v != 0;
  }
  return false;
}

}  // namespace

BackingFile::BackingFile(const std::string& path, bool direct) : path_(path), direct_(direct) {
  const int dflag = direct ? O_DIRECT : 0;
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC | dflag);
  if (fd_ < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | dflag);
    writable_ = false;
  }
  if (fd_ < 0) {
    const int e = errno;
    if (direct && e == EINVAL)
      throw std::runtime_error(fmt::format(
          "file={}: the file system does not support O_DIRECT (use direct=false)", path));
    throw std::runtime_error(fmt::format("file={}: cannot open: {}", path, std::strerror(e)));
  }
  auto fail = [&](const std::string& what) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(fmt::format("file={}: {}", path, what));
  };
  struct stat st;
  if (fstat(fd_, &st) < 0) fail(fmt::format("fstat: {}", std::strerror(errno)));
  if (S_ISBLK(st.st_mode)) {
    block_device_ = true;
    if (ioctl(fd_, BLKGETSIZE64, &size_) < 0)
      fail(fmt::format("BLKGETSIZE64: {}", std::strerror(errno)));
    int lbs = 512;
    if (ioctl(fd_, BLKSSZGET, &lbs) < 0) fail(fmt::format("BLKSSZGET: {}", std::strerror(errno)));
    unsigned int pbs = 0;
    if (ioctl(fd_, BLKPBSZGET, &pbs) < 0) fail(fmt::format("BLKPBSZGET: {}", std::strerror(errno)));
    logical_block_ = static_cast<std::uint32_t>(lbs);
    physical_block_ = std::max(logical_block_, static_cast<std::uint32_t>(pbs));
    discard_align_ = static_cast<std::uint32_t>(lbs);
    if (direct) direct_align_ = static_cast<std::uint32_t>(lbs);
    rotational_ = sysfs_rotational(st.st_rdev);
  } else if (S_ISREG(st.st_mode)) {
    size_ = static_cast<std::uint64_t>(st.st_size);
    rotational_ = sysfs_rotational(st.st_dev);
    if (direct) {
      struct statx sx = {};
      if (statx(fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
          (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align > 0) {
        direct_align_ = std::max(sx.stx_dio_offset_align, sx.stx_dio_mem_align);
      } else if (statx(fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
                 (sx.stx_mask & STATX_DIOALIGN)) {
        fail("the file system does not support O_DIRECT (statx reports no DIO alignment; use "
             "direct=false)");
      } else {
        direct_align_ = 4096;   // the kernel cannot tell us: the safe choice
      }
    }
  } else {
    fail("not a regular file or block device");
  }
  if (direct_align_ > 4096 || (direct_align_ & (direct_align_ - 1)) != 0)
    fail(fmt::format("unsupported O_DIRECT alignment {}", direct_align_));
}

BackingFile::~BackingFile() {
  if (fd_ >= 0) ::close(fd_);
}

BlockSizes advertised_block_sizes(std::uint32_t logical, std::uint32_t physical, bool direct,
                                  std::uint32_t direct_align) {
  if (logical == 0 && !direct) return {};
  BlockSizes b;
  b.minimum = std::max(logical, direct ? direct_align : 1u);
  b.preferred = std::max({b.minimum, physical, 4096u});
  b.maximum = 64u << 20;
  return b;
}

}  // namespace disksched::uring
