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
};

}  // namespace disksched::uring
