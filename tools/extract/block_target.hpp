// Probes a block device or a file directly: O_DIRECT preads (and, only inside the
// allowed range, pwrites of the bytes read from there at start-up) at queue depth 1,
// timed with CLOCK_MONOTONIC. The probe unit is the device's physical block, so that
// a 512e drive's 4 KiB sectors are what is timed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "tools/extract/host_target.hpp"

namespace disksched::extract {

class BlockTarget final : public HostTarget {
 public:
  // `writable_bytes` = (offset, length) in bytes that may be written, sector-aligned;
  // their contents are read once here and written back unchanged by every probe.
  BlockTarget(const std::string& path,
              std::optional<std::pair<std::uint64_t, std::uint64_t>> writable_bytes = {});
  ~BlockTarget() override;

  ProbeResult read(std::uint64_t lba, std::uint32_t count) override;
  ProbeResult write(std::uint64_t lba, std::uint32_t count) override;
  std::optional<ProbeResult> write_buffered(std::uint64_t lba, std::uint32_t count) override;
  bool is_block_device() const { return block_; }

 private:
  // A write of the saved bytes back to [lba, lba + count) through `fd`.
  ProbeResult put(int fd, std::uint64_t lba, std::uint32_t count);
  // One pread or pwrite (`io` says whether it moved every byte), timed; throws naming
  // the operation and the sector.
  template <typename Io>
  ProbeResult timed(const char* op, std::uint64_t lba, Io&& io);
  int fd_ = -1;
  int buffered_fd_ = -1;  // the same device without O_DSYNC (writable only)
  bool block_ = false;
  void* buf_ = nullptr;
  std::size_t buf_bytes_ = 0;
};

}  // namespace disksched::extract
