// The drive's controller and buffer as a state machine in device time: command
// overheads, the bus, a segmented read cache with read-ahead, and write-behind.
//
// The platter's costs come from the DeviceModel; this adds what lies between the host
// and the media. Deterministic, and no clock is read: serve() is told when the drive
// takes a command. The emulated device (emulator/device/virtual_device) serves every
// request through one, and the head tracker keeps one of its own fed with the requests
// it predicts, so both agree on what hits.
//
// The mechanism is modelled as runs: a media read or write of consecutive sectors from
// a head state. A read's run goes on past the request as read-ahead until its limit or
// until a command needs the mechanism; the sectors it has passed by then are in the
// segment (a later read of them hits, and one of sectors it is still coming to waits
// for them at the media rate). A write-behind write is acknowledged from the buffer and
// destaged as a run as soon as the mechanism is free; a write that continues the run
// being destaged joins it (combining). Every sector goes to the host once it is in the
// buffer and the one before it has gone, so a transfer runs at the slower of media and
// bus, and a full hit costs command overhead and bus time only.
//
// Write-behind is the volatile write cache of a drive of today too: flush() drains it,
// a FUA write bypasses it, and fast_write 0 (or no segments) is write-through.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/drive_params.hpp"

namespace disksched {

// The drive parameters of a model's profile, or null (a model without a profile, or one
// whose profile has none: the platter alone).
const DriveParams* drive_params_of(const DeviceModel& model);

struct DriveResult {
  Cost cost;           // overhead, seek, rotation, transfer (to the last byte on the bus),
                       // completion; cost.end: where the mechanism is, at the completion
  bool hit = false;    // served (at least its first sector) from the buffer
  std::uint32_t sectors_from_buffer = 0;  // read: sectors in the buffer when it began
  // When the request's last sector passed under the head, if this command put it there
  // (a miss, a write-through write), else negative: what a completion tells of the platter.
  Millis media_end_ms = -1.0;
  // A write taken behind (write-behind): when its last sector reaches the media, the
  // destage run scheduled for it; until then it is only in the buffer. Else negative.
  Millis destage_end_ms = -1.0;
};

class DriveCache {
 public:
  // `model` must outlive the cache. `initial`: the mechanism at power-on.
  DriveCache(const DeviceModel& model, DriveParams params, HeadState initial);

  // The drive takes a command at `start` (it has completed every earlier one). `fua`: a
  // write that must reach the media before it completes. `spin`: how the platter turns
  // (not given: the model's). Whole sectors.
  DriveResult serve(Millis start, Op op, std::uint64_t lba, std::uint32_t sectors, bool fua,
                    const Spin& spin = {});

  const DriveParams& params() const { return params_; }
  // When the mechanism is done with what it must do (a destage; not read-ahead).
  Millis mechanism_busy_until() const { return mech_.time_ms; }
  // Sectors waiting in the buffer to be written at `t`.
  std::uint64_t dirty_sectors(Millis t) const;
  // Does the buffer hold [lba, lba + sectors) (read or read ahead) at time `t`?
  bool holds(Millis t, std::uint64_t lba, std::uint32_t sectors) const;
  // The power goes at `t`: destage runs not done by then never happen (their data is
  // the write buffer's loss, emulator/device/write_cache.hpp), read-ahead stops, and
  // the buffer forgets the sectors it was still to write. The mechanism is free at `t`
  // where the model last placed it (a cut mid-run does not move it back).
  void power_cut(Millis t);

 private:
  struct Segment {
    std::uint64_t first = 0, end = 0;  // the sectors it holds, [first, end)
    std::uint64_t used = 0;            // last use, for LRU
    bool writes = false;               // the separate write segment
  };
  // A media run: consecutive sectors from `base`, started from `from` (whose time is when
  // the mechanism is free to move for it).
  struct Run {
    HeadState from;
    std::uint64_t base = 0, end = 0;  // [base, end)
    Millis media_end = 0.0;
  };
  struct Stream {      // read-ahead: a read run going on past its request
    bool on = false;
    Run run;           // run.end: the limit it reads to
    std::uint64_t min_end = 0;  // it reads at least to here before giving way
    std::size_t segment = 0;
  };

  // When the media has passed the last of the `count` sectors of `r` from its base.
  Millis sector_end(const Run& r, std::uint64_t count) const;
  // The run's sectors' end times (count of them), and where the head ends.
  Millis media_run(Run& r, Op op, std::vector<Millis>* ends, HeadState* end) const;
  // Moves the run's start on to `base` (between its base and end), keeping its times.
  void rebase(Run& r, std::uint64_t base) const;
  // Sectors of the stream read by `t`.
  std::uint64_t stream_done(Millis t) const;
  // Brings the stream to `t`: stop it there (`stop`) or only note its progress.
  void settle(Millis t, bool stop);
  // Where read-ahead after a read of [lba, end) stops; `seg_first`: the first sector the
  // segment it fills holds (lba for a miss).
  std::uint64_t read_ahead_limit(std::uint64_t lba, std::uint64_t end,
                                 std::uint64_t seg_first) const;
  // The sectors [first, last] on the track that holds `lba`.
  std::pair<std::uint64_t, std::uint64_t> track_of(std::uint64_t lba) const;
  std::size_t victim();
  void forget(std::uint64_t lba, std::uint64_t end);

  // serve(), step by step (drive_cache.cpp).
  struct Command;
  struct ReadPlan;
  struct WritePlan;
  Command command_of(Millis start, Op op, std::uint64_t lba, std::uint32_t sectors, bool fua) const;
  // The command's overhead: the profile's and the controller's, for a hit or a miss.
  Millis command_ms(const Command& cmd, bool miss) const;
  // The mechanism, free to move for a new run at `t` or once its committed work is done.
  HeadState mechanism_from(Millis t) const;
  DriveResult serve_other(const Command& cmd);  // flush, trim
  DriveResult serve_read(const Command& cmd);
  void read_from_stream(const Command& cmd, ReadPlan& plan, DriveResult& out);
  void read_from_buffer_or_media(const Command& cmd, ReadPlan& plan, DriveResult& out);
  void read_timing(const Command& cmd, const ReadPlan& plan, DriveResult& out) const;
  DriveResult serve_write(const Command& cmd);
  WritePlan write_command(const Command& cmd, DriveResult& out) const;
  void write_media_run(const Command& cmd, WritePlan& w) const;
  void keep_written(std::uint64_t lba, std::uint64_t end);
  void write_timing(const Command& cmd, const WritePlan& w, const HeadState& end_head,
                    DriveResult& out);

  const DeviceModel& model_;
  DriveParams params_;
  std::uint32_t sector_bytes_;
  std::uint64_t lbas_;
  Spin spin_;
  HeadState mech_;                    // free of committed work at mech_.time_ms, there
  Stream stream_;
  std::vector<Segment> segments_;
  std::deque<Run> destage_;           // write-behind runs, in mechanism order
  std::uint64_t clock_ = 0;           // LRU counter
  bool last_write_ = false;
  std::uint64_t last_write_end_ = 0;  // where the last write ended: the next continues it?
};

}  // namespace disksched
