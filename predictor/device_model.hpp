// The one interface every room uses to ask what a device costs.
//
// Times are milliseconds as double (`Millis`), on whatever clock the caller runs:
// virtual in the simulator, CLOCK_MONOTONIC in the emulator and the daemon. The model
// never reads a clock; the time is always passed in.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace disksched {

using Millis = double;

enum class Op : std::uint8_t { Read, Write, Flush, Trim, Zero, Cache };

std::string_view op_name(Op op);

// Where the mechanism is and when. For a disk: cylinder and head at `time_ms`; the
// platter angle is a function of time (the model knows its rotation period and phase),
// so it is not stored. For MEMS: the sled's x column (`cylinder`), its y position in
// bits (`y`) and its direction of motion in y (`y_dir`, +1 or -1) at `time_ms`.
struct HeadState {
  Millis time_ms = 0.0;
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  double y = 0.0;
  std::int8_t y_dir = +1;
};

// A request's physical start, computed once when the request is queued so the
// schedulers' inner loop does no LBA arithmetic. For a disk: cylinder, head and the
// start angle of the first sector in rotations [0, 1). For MEMS: x column in
// `cylinder`, start y bit in `y`, access direction in `y_dir`.
struct Location {
  std::uint64_t lba = 0;
  std::uint32_t sectors = 0;
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  double angle = 0.0;
  double y = 0.0;
  std::int8_t y_dir = +1;
  Millis overhead_ms = 0.0;   // command overhead of the op, part of positioning
};

// The cost of serving one request that starts at `start.time_ms`.
struct Cost {
  Millis overhead_ms = 0.0;   // command overhead (controller), before positioning
  Millis seek_ms = 0.0;       // arm / sled motion, including settle and head switch
  Millis rotation_ms = 0.0;   // rotational wait after the seek (0 for MEMS)
  Millis transfer_ms = 0.0;   // media transfer, including switches inside the transfer
  Millis completion_ms = 0.0; // from the end of the transfer to the completion report
  HeadState end;              // where the mechanism is when the request completes

  // Equals DeviceModel::positioning_ms for the same start.
  Millis positioning_ms() const { return overhead_ms + seek_ms + rotation_ms; }
  Millis service_ms() const {
    return overhead_ms + seek_ms + rotation_ms + transfer_ms + completion_ms;
  }
};

class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DeviceModel {
 public:
  virtual ~DeviceModel() = default;

  // "disk", "mems" or "fixed".
  virtual std::string_view kind() const = 0;
  virtual std::string name() const = 0;
  virtual std::uint64_t capacity_bytes() const = 0;
  virtual std::uint32_t sector_bytes() const = 0;
  // Number of cylinders (disk) or x bit columns (MEMS); 1 for fixed.
  virtual std::int64_t cylinders() const = 0;
  // True when positioning depends on rotational position (a disk).
  virtual bool rotational() const = 0;

  // Physical location of the first sector of a request of `sectors` sectors at `lba`.
  // Throws ModelError when the range lies beyond the device.
  virtual Location locate(std::uint64_t lba, std::uint32_t sectors = 1,
                          Op op = Op::Read) const = 0;

  // Time from `from.time_ms` until the media transfer of `to` can start: the op's
  // command overhead, then seek (with settle / head switch) and rotational wait (or
  // the MEMS sled's seek). The schedulers' inner loop: must be cheap.
  // For a rotational model the fast SATF search (schedulers/rotational/access_index)
  // relies on: positioning = to.overhead_ms + a move of at least seek_ms(|dcylinder|)
  // + the wait until the platter brings to.angle under the heads.
  virtual Millis positioning_ms(const HeadState& from, const Location& to) const = 0;

  // Seek time for a move of `distance` cylinders (disk) or x columns (MEMS).
  virtual Millis seek_ms(std::int64_t distance) const = 0;

  // Full cost of a request starting at `from.time_ms`, from head state `from`.
  virtual Cost service(const HeadState& from, Op op, std::uint64_t offset,
                       std::uint32_t length) const = 0;

  // The state at power-on: cylinder 0, head 0 (MEMS: sled centred), at time 0.
  virtual HeadState initial_state() const { return HeadState{}; }

  // Time of one rotation (disk), 0 for non-rotating devices.
  virtual Millis rotation_ms() const { return 0.0; }
  // Time of one sector passing under the head in the outermost zone (disk), else 0.
  virtual Millis sector_time_ms() const { return 0.0; }

  // Live head tracking (Huang & Chiueh). The platter angle, in rotations [0, 1), under
  // the heads at time `t`; 0 for non-rotating devices.
  virtual double angle_at(Millis /*t*/) const { return 0.0; }
  // Re-anchor the rotation: the platter is at `angle` at time `t`. Optionally refine
  // the rotation period (`period_ms` > 0). A no-op for non-rotating devices.
  virtual void anchor_rotation(Millis /*t*/, double /*angle*/, Millis /*period_ms*/ = 0.0) {}
  // The angle at which the last sector of [lba, lba + sectors) ends: where the
  // platter is when that transfer finishes.
  virtual double end_angle(std::uint64_t /*lba*/, std::uint32_t /*sectors*/) const { return 0.0; }
  // Turn track (cylinder, head)'s sector 0 by `delta_rotations` from where the model has
  // it now (a phase learnt from completions: the skews the profile assumes are off
  // there). Everything that depends on the track's angle follows (locate, end_angle,
  // service). A no-op for devices without tracks.
  virtual void adjust_track_phase(std::int64_t /*cylinder*/, std::int32_t /*head*/,
                                  double /*delta_rotations*/) {}
};

// Builds a model from a built-in name (`hp97560`, `hp97560-full`, `mems`,
// `fixed:ms=X`) or a path to a JSON geometry profile. Throws ModelError naming what
// was wrong.
std::unique_ptr<DeviceModel> load_model(std::string_view name_or_path);

}  // namespace disksched
