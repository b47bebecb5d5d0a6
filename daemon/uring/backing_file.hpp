// The file or block device the uring plugin serves: opened once, shared by every
// connection, with what the plugin needs to know about it.
#pragma once

#include <cstdint>
#include <string>

namespace disksched::uring {

class BackingFile {
 public:
  // Opens `path` read-write (read-only if that is all that is allowed), with O_DIRECT if
  // `direct`. Throws std::runtime_error naming the file and the problem.
  BackingFile(const std::string& path, bool direct);
  ~BackingFile();
  BackingFile(const BackingFile&) = delete;
  BackingFile& operator=(const BackingFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  std::uint64_t size() const { return size_; }
  bool block_device() const { return block_device_; }
  bool writable() const { return writable_; }
  bool direct() const { return direct_; }
  // Offset and length alignment O_DIRECT needs (statx DIOALIGN, or the block device's
  // logical block size); 1 without direct.
  std::uint32_t direct_align() const { return direct_align_; }
  // Alignment fallocate and discard need: the logical block size for a block device, 1
  // for a file.
  std::uint32_t discard_align() const { return discard_align_; }
  // From sysfs: the device (or the file system's device) is rotational.
  bool rotational() const { return rotational_; }
  // A block device's logical and physical block sizes (BLKSSZGET, BLKPBSZGET); 0 for a
  // file, which has none of its own.
  std::uint32_t logical_block() const { return logical_block_; }
  std::uint32_t physical_block() const { return physical_block_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  bool block_device_ = false;
  bool writable_ = true;
  bool direct_ = false;
  std::uint32_t direct_align_ = 1;
  std::uint32_t discard_align_ = 1;
  bool rotational_ = false;
  std::uint32_t logical_block_ = 0;
  std::uint32_t physical_block_ = 0;
};

// What the plugin advertises as nbdkit's .block_size: the smallest request the device
// takes whole, the size that needs no read-modify-write, the largest request. All 0: no
// constraints.
struct BlockSizes {
  std::uint32_t minimum = 0, preferred = 0, maximum = 0;
  bool operator==(const BlockSizes&) const = default;
};

// From the backing's logical and physical block sizes (0: unknown, a file without
// block-size=) and, with O_DIRECT, its alignment: at least the logical block, preferred
// at least a page and the physical block, at most 64 MiB.
BlockSizes advertised_block_sizes(std::uint32_t logical, std::uint32_t physical, bool direct,
                                  std::uint32_t direct_align);

}  // namespace disksched::uring
