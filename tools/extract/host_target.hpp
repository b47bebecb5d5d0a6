// What the block-device and NBD targets share: a device on the host's monotonic clock,
// its size learned when it was opened, and the writable range whose bytes are read once
// and written back unchanged by every write probe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/extract/clock.hpp"
#include "tools/extract/probe_target.hpp"
#include "tools/extract/writable.hpp"

namespace disksched::extract {

class HostTarget : public ProbeTarget {
 public:
  HostTarget(const HostTarget&) = delete;
  HostTarget& operator=(const HostTarget&) = delete;

  std::string describe() const override { return name_; }
  std::uint32_t sector_bytes() const override { return sector_; }
  std::uint64_t sectors() const override { return sectors_; }
  Millis now_ms() override { return monotonic_ms(); }
  void wait_until(Millis t_ms) override { wait_until_monotonic(t_ms); }
  // The writable range in sectors, [first, last].
  std::optional<std::pair<std::uint64_t, std::uint64_t>> writable_sectors() const { return writable_; }

 protected:
  explicit HostTarget(std::string name) : name_(std::move(name)) {}
  // Sets the writable range from (offset, length) bytes, once sector_ and sectors_ are
  // known, and makes room to save its contents: returns (first byte, length in bytes).
  std::pair<std::uint64_t, std::uint64_t> keep_writable(std::pair<std::uint64_t, std::uint64_t> bytes) {
    writable_ = rewritable_sectors(bytes, sector_, sectors_);
    const auto [first, last] = *writable_;
    saved_.resize((last - first + 1) * sector_);
    return {first * sector_, saved_.size()};
  }
  // The saved bytes of sectors [lba, lba + count), which must lie in the writable range.
  const std::uint8_t* saved_at(std::uint64_t lba, std::uint32_t count) const {
    check_write_probe(writable_, lba, count);
    return saved_.data() + (lba - writable_->first) * sector_;
  }

  std::string name_;  // the path or URI, for describe() and errors
  std::uint32_t sector_ = 512;
  std::uint64_t sectors_ = 0;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> writable_;  // [first, last] sector
  std::vector<std::uint8_t> saved_;  // contents of the writable range
};

}  // namespace disksched::extract
