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
#include <vector>

#include "predictor/rotation_state.hpp"
#include "predictor/spin.hpp"

namespace disksched {

using Millis = double;

enum class Op : std::uint8_t { Read, Write, Flush, Trim, Zero, Cache };

std::string_view op_name(Op op);

// Where the mechanism is and when. For a disk: cylinder and head at `time_ms`, and how
// the platter turns (`spin`: the angle is a function of time; not given, the model's
// own from its profile; the head tracker passes the one it learnt). For MEMS: the
// sled's x column (`cylinder`), its y position in bits (`y`) and its direction of
// motion in y (`y_dir`, +1 or -1) at `time_ms`.
struct HeadState {
  Millis time_ms = 0.0;
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  double y = 0.0;
  std::int8_t y_dir = +1;
  Spin spin;
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
  Millis settle_ms = 0.0;     // added to any non-zero move to it (a write's extra settle)
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

// Immutable once built: what is learnt while running (the platter's spin, track angles)
// is passed in (HeadState::spin, TrackAngles), never stored here, so Locations found
// earlier stay true to the model they came from.
class DeviceModel {
 public:
  virtual ~DeviceModel() = default;

  // "disk", "mems" or "fixed".
  virtual std::string_view kind() const = 0;
  virtual std::string name() const = 0;
  virtual std::uint64_t capacity_bytes() const = 0;
  virtual std::uint32_t sector_bytes() const = 0;
  // The media's sector: larger than sector_bytes() on a 512e drive (4096), where a
  // write that does not cover whole physical sectors is a read-modify-write.
  virtual std::uint32_t physical_sector_bytes() const { return sector_bytes(); }
  // Number of cylinders (disk) or x bit columns (MEMS); 1 for fixed.
  virtual std::int64_t cylinders() const = 0;
  // True when positioning depends on rotational position (a disk).
  virtual bool rotational() const = 0;

  // Physical location of the first sector of a request of `sectors` sectors at `lba`.
  // Throws ModelError when the range lies beyond the device.
  virtual Location locate(std::uint64_t lba, std::uint32_t sectors = 1,
                          Op op = Op::Read) const = 0;
  // The same with the track angles learnt so far (`learnt` overrides the profile's
  // angle of the tracks it holds). Models without tracks ignore them.
  virtual Location locate(std::uint64_t lba, std::uint32_t sectors, Op op,
                          const TrackAngles& /*learnt*/) const {
    return locate(lba, sectors, op);
  }

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
  // The same with the track angles learnt so far.
  virtual Cost service(const HeadState& from, Op op, std::uint64_t offset, std::uint32_t length,
                       const TrackAngles& /*learnt*/) const {
    return service(from, op, offset, length);
  }

  // When each sector of a media run ends: out[k - 1] is when the transfer of the first k
  // sectors of [lba, lba + count), started from `from` with the command's overhead already
  // paid, ends (from.time_ms + seek + rotation + transfer of a k-sector request). What a
  // drive's buffer needs to know of a run as it goes. This one costs a service() a sector;
  // a disk walks the run once.
  virtual void media_ends(const HeadState& from, Op op, std::uint64_t lba, std::uint64_t count,
                          std::vector<Millis>& out) const;

  // The state at power-on: cylinder 0, head 0 (MEMS: sled centred), at time 0.
  virtual HeadState initial_state() const { return HeadState{}; }

  // Time of one rotation (disk), 0 for non-rotating devices.
  virtual Millis rotation_ms() const { return 0.0; }
  // Time of one sector passing under the head in the outermost zone (disk), else 0.
  virtual Millis sector_time_ms() const { return 0.0; }

  // How the platter turns as the profile says (not given for non-rotating devices).
  virtual Spin spin() const { return Spin{}; }
  // The spin a head state runs with: its own when given, else the model's.
  Spin spin_of(const HeadState& s) const { return s.spin.given() ? s.spin : spin(); }
  // Live head tracking (Huang & Chiueh). The platter angle, in rotations [0, 1), under
  // the heads at time `t` as the profile's spin has it; 0 for non-rotating devices.
  double angle_at(Millis t) const {
    const Spin s = spin();
    return s.given() ? s.angle_at(t) : 0.0;
  }
  // The angle at which the last sector of [lba, lba + sectors) ends: where the
  // platter is when that transfer finishes.
  virtual double end_angle(std::uint64_t /*lba*/, std::uint32_t /*sectors*/) const { return 0.0; }
  virtual double end_angle(std::uint64_t lba, std::uint32_t sectors,
                           const TrackAngles& /*learnt*/) const {
    return end_angle(lba, sectors);
  }
  // Records in `learnt` that track (cylinder, head)'s sector 0 is `delta_rotations` from
  // where the model (with `learnt`) has it now: a phase learnt from completions (the
  // skews the profile assumes are off there). Throws ModelError for a track the device
  // does not have; a no-op for devices without tracks.
  virtual void turn_track(TrackAngles& /*learnt*/, std::int64_t /*cylinder*/,
                          std::int32_t /*head*/, double /*delta_rotations*/) const {}
};

// Builds a model from a built-in name (builtin_model_names()), `fixed:ms=X`, or a path to
// a JSON geometry profile. Throws ModelError naming what was wrong.
std::unique_ptr<DeviceModel> load_model(std::string_view name_or_path);

// The built-in models' names, and the same as a help text's list ("hp97560, ...,
// sas15k-600gb (the last 3 also -512n, -512e, -4kn, then -nocache)").
std::vector<std::string> builtin_model_names();
std::string builtin_models_text();

}  // namespace disksched
