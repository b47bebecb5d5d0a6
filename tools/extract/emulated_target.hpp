// A probe target that plays a profile as diskemu plays it (emulator/device: the drive's
// buffer with read-ahead, its volatile write cache, its own command queue) in virtual
// time, and holds several commands at once (DriveTarget). The drive steps' tests and
// `disksched predicts` measure drives of today through it; VirtualTarget (one probe at a
// time, the host noise presets) stays the geometry steps' harness.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "emulator/device/drive_queue.hpp"
#include "emulator/device/virtual_device.hpp"
#include "tools/extract/drive_target.hpp"
#include "tools/extract/virtual_clock_target.hpp"

namespace disksched::extract {

// The host path: a command reaches the drive `issue_ms` after it is issued, and its
// completion is seen `completion_ms` (plus an exponential jitter of mean `jitter_ms`)
// after the drive reports it.
struct HostPath {
  Millis issue_ms = 0.02;
  Millis completion_ms = 0.03;
  Millis jitter_ms = 0.0;
  std::uint64_t seed = 1;
};

class EmulatedTarget final : public VirtualClockTarget, public DriveTarget {
 public:
  // Throws SpecError / std::invalid_argument for queue options the drive queue refuses.
  EmulatedTarget(std::unique_ptr<DeviceModel> model, DriveQueueOptions queue, HostPath host = {});

  std::string describe() const override;
  std::uint32_t sector_bytes() const override { return sector_bytes_; }
  std::uint64_t sectors() const override { return sectors_; }
  ProbeResult read(std::uint64_t lba, std::uint32_t count) override;
  ProbeResult write(std::uint64_t lba, std::uint32_t count) override;
  std::optional<ProbeResult> write_buffered(std::uint64_t lba, std::uint32_t count) override;
  std::optional<Millis> null_round_trip_ms() override;

  std::vector<ProbeResult> closed_loop(std::span<const Command> cmds, unsigned depth) override;
  ProbeResult flush() override;

  const DeviceModel& model() const { return device_.model(); }
  const VirtualDevice& device() const { return device_; }
  const DriveQueueOptions& queue_options() const { return queue_.options(); }

 private:
  ProbeResult one(const Command& c);
  Millis seen_after() ;

  VirtualDevice device_;
  DriveQueue queue_;
  HostPath host_;
  std::mt19937_64 rng_;
  std::uint32_t sector_bytes_;
  std::uint64_t sectors_;
};

}  // namespace disksched::extract
