// Probes an NBD export (typically `nbdkit diskemu`) one request at a time, timed with
// CLOCK_MONOTONIC around each call: libnbd's synchronous calls, or an asynchronous
// command polled without sleeping when spinning is on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/extract/host_target.hpp"

struct nbd_handle;

namespace disksched::extract {

class NbdTarget final : public HostTarget {
 public:
  // `sector_bytes` = 0: the server's minimum block size, at least 512.
  NbdTarget(const std::string& uri, std::uint32_t sector_bytes = 0,
            std::optional<std::pair<std::uint64_t, std::uint64_t>> writable_bytes = {});
  ~NbdTarget() override;

  ProbeResult read(std::uint64_t lba, std::uint32_t count) override;
  ProbeResult write(std::uint64_t lba, std::uint32_t count) override;
  std::optional<ProbeResult> write_buffered(std::uint64_t lba, std::uint32_t count) override;
  bool set_spin_wait(bool on) override {
    spin_ = on;
    return true;
  }
  // The same client path against a captive `nbdkit null` (when nbdkit is installed).
  std::optional<Millis> null_round_trip_ms() override;

 private:
  // A write of the saved bytes back to [lba, lba + count) with these NBD flags.
  ProbeResult put(std::uint64_t lba, std::uint32_t count, std::uint32_t flags);
  nbd_handle* h_ = nullptr;
  bool spin_ = false;
  nbd_handle* null_ = nullptr;
  bool null_tried_ = false;
  std::vector<std::uint8_t> buf_;
};

}  // namespace disksched::extract
