// The disk of the process-flow model: the emulated device (emulator/device/) with the
// drive's read buffer in front (GP Table 2: 64 KB), as the dispatch core's head source.
//
// After a read from the media the drive keeps reading on into its buffer, sector after
// sector as the platter brings them, until the buffer holds `buffer_bytes` from that
// read's start or another request moves the head. A later read that lies wholly in what
// the buffer holds, or will hold by the time the platter gets there while it still
// streams, is a buffer hit: no seek, no rotational wait, done when its last sector is in
// the buffer. Writes go to the media (the write buffer is not modelled) and drop the
// read buffer when they overlap it. A hit leaves the head where it was.
//
// Why this is not a configuration of the one drive (predictor/drive_cache.hpp, which
// VirtualDevice serves through for a profile with a cache): it is the buffer of Ganger &
// Patt's model (their Table 2), kept so that `repro gp93` and `dn13-flow` test their
// claims on it. DriveCache is DiskSim's controller: segments with LRU, a ring,
// read-ahead limits counted past the request, partial hits and reads that join the
// stream past its limit, command overheads and bus time. Configured to one 64 KB segment
// it still serves those cases differently (here a read wholly within the buffer hits at
// no cost but the wait for its sectors, anything else is a full miss), so the flow
// results would move. The device under it is the one device: the gp93 model has no
// cache (the platter alone), so this adds only the buffer.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>

#include "emulator/device/virtual_device.hpp"
#include "predictor/head_source.hpp"

namespace disksched::flow {

class BufferedDrive final : public HeadSource {
 public:
  // One request at the drive.
  struct InService {
    std::uint64_t id = 0;
    Millis start_ms = 0.0;       // when the drive took it (after the one before)
    Millis completion_ms = 0.0;
    bool hit = false;            // served from the read buffer
    std::int64_t seek_cylinders = 0;
    Millis seek_ms = 0.0;
    Prediction prediction;
  };

  // `buffer_bytes` 0: no read buffer.
  BufferedDrive(VirtualDevice& device, std::uint32_t buffer_bytes);

  HeadState predict(Millis now) const override;
  const Prediction& dispatched(std::uint64_t id, Millis now, Op op, std::uint64_t offset,
                               std::uint32_t length,
                               std::span<const std::uint64_t> stops = {}) override;
  const Prediction& completed(std::uint64_t id, Millis now, bool ok) override;

  bool busy() const { return !held_.empty(); }
  const InService& next() const { return held_.front(); }
  Millis next_completion_ms() const {
    return held_.empty() ? std::numeric_limits<Millis>::infinity() : held_.front().completion_ms;
  }

 private:
  // When the sectors [stream_lba_, end) are in the buffer if the drive streams from
  // stream_from_ (infinity when `end` lies beyond the buffer).
  Millis ready_ms(std::uint64_t end) const;
  // The read-ahead stops at `t`: keep what it had read by then.
  void stop_streaming(Millis t);

  VirtualDevice& device_;
  std::uint64_t buffer_sectors_;
  std::deque<InService> held_;
  Prediction completed_;  // what the last completed() returned
  Millis busy_until_ = 0.0;
  // The buffer: sectors [buf_lba_, filled_lba_) are in it; while streaming, the drive
  // reads on from filled_lba_ starting from head state stream_from_.
  bool have_buffer_ = false;
  bool streaming_ = false;
  std::uint64_t buf_lba_ = 0, filled_lba_ = 0;
  HeadState stream_from_;
};

}  // namespace disksched::flow
