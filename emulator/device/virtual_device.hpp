// The emulated device as a state machine in device time: given a request and the time it
// arrives, when does the device start it and when does it complete?
//
// The device has no command queue: it serves one request at a time, in the order they are
// handed to it. A request starts when it arrives or when the previous one completes,
// whichever is later, from the head state the previous one left; its cost comes from the
// device model (plus rpm error and jitter, see rpm_error.hpp and jitter.hpp). No clock is
// read here: the caller passes the arrival time, so the timing is exact and testable.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "emulator/device/jitter.hpp"
#include "emulator/device/rpm_error.hpp"
#include "emulator/device/write_cache.hpp"
#include "predictor/device_model.hpp"
#include "predictor/drive_cache.hpp"

namespace disksched {

struct DeviceOptions {
  JitterSpec jitter;
  std::uint64_t jitter_seed = 1;
  RpmError rpm_error;
  // A volatile write cache in front of the media (diskemu's write-cache=), destaged
  // shortest positioning first when idle; not given: writes as the profile says (its
  // write-behind, if it has one, is then the write buffer, destaged by the profile's
  // rules, with timing exactly as before). Given with 0 bytes: write-through, every
  // write pays its mechanical time.
  std::optional<WriteCacheOptions> write_cache;
};

// What the write cache did while the device served: extents written to the media (in
// the order written, each with when it got there) or lost to a power cut.
struct Destage {
  Extent extent;
  Millis media_ms = 0.0;
  // When the mechanism began it (a WhenIdle destage); negative when the profile's
  // write-behind wrote it (its run is the drive cache's) or a seeded cut kept it.
  Millis start_ms = -1.0;
};

// One request's passage through the device, all in device ms.
struct Service {
  std::uint64_t seq = 0;      // 0 for the first request served
  Op op = Op::Read;
  Millis arrival_ms = 0.0;
  Millis start_ms = 0.0;      // max(arrival, previous completion)
  Millis completion_ms = 0.0; // cost.end.time_ms + jitter_ms
  Millis jitter_ms = 0.0;
  Cost cost;                  // the model's cost from the head state at start_ms
  bool hit = false;           // the drive's buffer served it (a profile with a cache)
  bool buffered = false;      // a write acknowledged from the write buffer (not on the media)
  // Dirty extents the write cache wrote to the media from the previous request's
  // completion up to this one's (idle destaging, room for a write, a flush).
  std::vector<Destage> destaged;

  Millis wait_ms() const { return start_ms - arrival_ms; }
  Millis service_ms() const { return completion_ms - start_ms; }
};

class VirtualDevice {
 public:
  // Throws ModelError if the options do not fit the model (rpm-error on a device that
  // does not rotate).
  VirtualDevice(std::unique_ptr<DeviceModel> model, DeviceOptions options = {});
  // A device over a model it does not own (the simulator's: one model instance may
  // serve many runs; the model is immutable, so rpm error serves with a spin of its own).
  explicit VirtualDevice(const DeviceModel& model, DeviceOptions options = {});

  const DeviceModel& model() const { return *model_; }
  const DeviceOptions& options() const { return options_; }

  // Serves a request of `length` bytes at byte `offset`. The model is asked about whole
  // sectors: the range is widened to sector boundaries. A profile with a controller, bus
  // or cache (predictor/drive_params.hpp) is served through the drive's DriveCache: hits,
  // read-ahead, write-behind (`fua` writes go through). Throws ModelError (from the model)
  // for a range beyond the device; the device state is then unchanged.
  Service serve(Millis arrival_ms, Op op, std::uint64_t offset, std::uint32_t length,
                bool fua = false);
  // The same into `s` (every field set; its destaged list keeps its storage): a
  // simulator's loop reuses one Service per request in flight.
  void serve_into(Service& s, Millis arrival_ms, Op op, std::uint64_t offset,
                  std::uint32_t length, bool fua = false) {
    if (platter_only_ && offset <= capacity_bytes_ && length <= capacity_bytes_ - offset)
      serve_platter(s, arrival_ms, op, offset, length);
    else
      serve_general(s, arrival_ms, op, offset, length, fua);
  }
  // The drive's controller and buffer, or null (the platter alone).
  const DriveCache* drive() const { return drive_ ? &*drive_ : nullptr; }
  // The write buffer, or null (none, or write-through): write-cache='s (WhenIdle), or
  // without that key the profile's write-behind (ProfileWriteBehind).
  const WriteCache* write_cache() const { return wcache_ ? &*wcache_ : nullptr; }

  // The power goes at device time `t` (no earlier than the last arrival): destages that
  // finish by then reach the media; every other dirty extent is lost, as in a real cut.
  // With a `seed`, the drive is taken to have written a seeded part of what was left in
  // an order of its own before the power went (those extents are destaged at `t`, the
  // rest lost): the same seed over the same requests keeps the same extents. Nothing
  // flushed or written with FUA is ever in the buffer, so none of it is lost. The
  // device then serves on with an empty buffer.
  struct PowerCut {
    std::vector<Destage> destaged;  // finished before the cut
    std::vector<Extent> lost;       // acknowledged, never on the media
  };
  PowerCut power_cut(Millis t, std::optional<std::uint64_t> seed = std::nullopt);

  // Where the mechanism is after the last request, and when that request completed.
  const HeadState& head() const { return head_; }
  std::uint64_t served() const { return seq_; }

  // The true platter angle, in rotations [0, 1), at device time t (the model's own angle
  // when there is no rpm error). 0 for devices that do not rotate.
  double true_angle_at(Millis t) const;

 private:
  // The mechanism's state for work starting at `t` (no earlier than the head's time).
  HeadState from_at(Millis t) const {
    if (!options_.rpm_error.none()) return from_at_true_spin(t);
    HeadState from = head_;
    from.time_ms = std::max(t, head_.time_ms);
    return from;
  }
  HeadState from_at_true_spin(Millis t) const;
  // What every command does first: its record begun, and its bytes as whole sectors
  // (a partial sector costs as much as a full one on the media), returned.
  struct Sectors {
    std::uint64_t begin, bytes;
  };
  Sectors begin_command(Service& s, Millis arrival_ms, Op op, std::uint64_t offset,
                        std::uint32_t length) {
    s.destaged.clear();
    s.hit = false;
    s.buffered = false;
    s.seq = seq_;
    s.op = op;
    s.arrival_ms = arrival_ms;
    const std::uint64_t sb = sector_bytes_;
    if (length == 0) return {offset, 0};
    const std::uint64_t begin = offset - in_sector(offset);
    const std::uint64_t end = offset + length, tail = in_sector(end);
    return {begin, (tail == 0 ? end : end + (sb - tail)) - begin};
  }
  // x % sector_bytes_: a mask for a power of two (every profile's), not a division.
  std::uint64_t in_sector(std::uint64_t x) const {
    return sector_pow2_ ? x & (sector_bytes_ - 1) : x % sector_bytes_;
  }
  // ... and last: it completes after the host-side jitter, and the head stays where the
  // command left it unless the command was served from the buffer (the mechanism then
  // goes on with its destage, untouched).
  void end_command(Service& s, bool moved_head) {
    s.jitter_ms = jitter_.sample();
    s.completion_ms = s.cost.end.time_ms + s.jitter_ms;
    if (moved_head) {
      head_ = s.cost.end;
      head_.time_ms = s.completion_ms;
    }
    controller_free_ = s.completion_ms;
    ++seq_;
  }
  // serve_into on the platter alone (no drive cache, write cache or rpm error), inline
  // and without serve_general()'s tests of what is not there: the command starts once
  // the one before it completed, from where that one left the head.
  void serve_platter(Service& s, Millis arrival_ms, Op op, std::uint64_t offset,
                     std::uint32_t length) {
    const Sectors at = begin_command(s, arrival_ms, op, offset, length);
    s.start_ms = std::max(std::max(arrival_ms, controller_free_), head_.time_ms);
    HeadState from = head_;
    from.time_ms = s.start_ms;
    ::new (&s.cost) Cost(model_->service(from, op, at.begin, static_cast<std::uint32_t>(at.bytes)));
    end_command(s, true);
  }
  // serve_into otherwise (and a range beyond the device: it throws).
  void serve_general(Service& s, Millis arrival_ms, Op op, std::uint64_t offset,
                     std::uint32_t length, bool fua);
  // Serves sectors [lba, lba + n) on the media (through the drive cache if there is one)
  // into `out`. `destage_end`: set to when a write taken behind by the profile's
  // write-behind reaches the media (negative if it went through).
  // The platter alone is served here, inline: built in place, the model's Cost (104
  // bytes) is not copied once more per request.
  void media(Cost& out, const HeadState& from, Op op, std::uint64_t lba, std::uint64_t n,
             bool fua, bool* hit, Millis* destage_end = nullptr) {
    if (drive_) return drive_media(out, from, op, lba, n, fua, hit, destage_end);
    if (destage_end != nullptr) *destage_end = -1.0;
    ::new (&out) Cost(model_->service(from, op, lba, static_cast<std::uint32_t>(n)));
  }
  void drive_media(Cost& out, const HeadState& from, Op op, std::uint64_t lba, std::uint64_t n,
                   bool fua, bool* hit, Millis* destage_end);
  // A command acknowledged from the write cache: the command overhead and the host
  // transfer only, from `start_ms`.
  Cost buffered(Millis start_ms, Op op, const Extent& ext, bool write) const;
  bool destages_when_idle() const {
    return wcache_ && wcache_->policy() == DestagePolicy::WhenIdle;
  }
  // Moves what the profile's write-behind has on the media by `t` out of the buffer.
  void retire(std::vector<Destage>& out, Millis t);
  // When the next destage can start: the mechanism free and a dirty extent in.
  Millis destage_start() const { return std::max(head_.time_ms, wcache_->first_added()); }
  // Writes the dirty extent (of those in by then) of shortest positioning time from
  // where the head is, at destage_start(); `by`: only if it is on the media by then.
  bool destage_one(std::vector<Destage>& out, Millis by = -1.0);
  // Destages while the mechanism is idle before `t` (a destage begun goes on to its end).
  void destage_idle(std::vector<Destage>& out, Millis t);

  std::unique_ptr<DeviceModel> owned_;  // null when the model is borrowed
  const DeviceModel* model_;
  // The model's (immutable) size, kept: two virtual calls fewer per request.
  std::uint64_t capacity_bytes_ = 0;
  std::uint64_t sector_bytes_ = 0;
  bool sector_pow2_ = false;
  DeviceOptions options_;
  Jitter jitter_;
  std::optional<DriveCache> drive_;
  std::optional<WriteCache> wcache_;
  HeadState head_;
  std::uint64_t seq_ = 0;
  Millis period_ms_ = 0.0;   // the model's nominal rotation period
  double phase0_ = 0.0;      // the model's angle at time 0
  // When the last command completed. head_.time_ms is when the mechanism is free: later
  // with a write cache, whose destages go on while commands are served from the buffer.
  Millis controller_free_ = 0.0;
  // The profile's write buffer destages among the oldest this many (0: all).
  unsigned destage_window_ = 0;
  // No drive cache, write cache or rpm error: serve_into's short path.
  bool platter_only_ = false;
};

}  // namespace disksched
