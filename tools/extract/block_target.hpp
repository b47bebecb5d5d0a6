// Probes a block device or a file directly: O_DIRECT preads (and, only inside the
// allowed range, pwrites of the bytes read from there at start-up) at queue depth 1,
// timed with CLOCK_MONOTONIC. The probe unit is the device's physical block, so that
// a 512e drive's 4 KiB sectors are what is timed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

class BlockTarget final : public ProbeTarget {
 public:
  // `writable_bytes` = (offset, length) in bytes that may be written, sector-aligned;
  // their contents are read once here and written back unchanged by every probe.
  BlockTarget(const std::string& path,
              std::optional<std::pair<std::uint64_t, std::uint64_t>> writable_bytes = {});
  ~BlockTarget() override;
  BlockTarget(const BlockTarget&) = delete;
  BlockTarget& operator=(const BlockTarget&) = delete;

  std::string describe() const override { return path_; }
  std::uint32_t sector_bytes() const override { return sector_; }
  std::uint64_t sectors() const override { return sectors_; }
  Millis now_ms() override;
  void wait_until(Millis t_ms) override;
  ProbeResult read(std::uint64_t lba, std::uint32_t count) override;
  ProbeResult write(std::uint64_t lba, std::uint32_t count) override;
  std::optional<ProbeResult> write_buffered(std::uint64_t lba, std::uint32_t count) override;
  bool is_block_device() const { return block_; }
  // The writable range in sectors, [first, last].
  std::optional<std::pair<std::uint64_t, std::uint64_t>> writable_sectors() const { return writable_; }

 private:
  // A write of the saved bytes back to [lba, lba + count) through `fd`.
  ProbeResult put(int fd, std::uint64_t lba, std::uint32_t count);
  std::string path_;
  int fd_ = -1;
  int buffered_fd_ = -1;  // the same device without O_DSYNC (writable only)
  bool block_ = false;
  std::uint32_t sector_ = 512;
  std::uint64_t sectors_ = 0;
  void* buf_ = nullptr;
  std::size_t buf_bytes_ = 0;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> writable_;  // [first, last] sector
  std::vector<std::uint8_t> saved_;  // contents of the writable range
};

}  // namespace disksched::extract
