// The emulated device as a state machine in device time: given a request and the time it
// arrives, when does the device start it and when does it complete?
//
// The device has no command queue: it serves one request at a time, in the order they are
// handed to it. A request starts when it arrives or when the previous one completes,
// whichever is later, from the head state the previous one left; its cost comes from the
// device model (plus rpm error and jitter, see rpm_error.hpp and jitter.hpp). No clock is
// read here: the caller passes the arrival time, so the timing is exact and testable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "emulator/device/jitter.hpp"
#include "emulator/device/rpm_error.hpp"
#include "predictor/device_model.hpp"
#include "predictor/drive_cache.hpp"

namespace disksched {

struct DeviceOptions {
  JitterSpec jitter;
  std::uint64_t jitter_seed = 1;
  RpmError rpm_error;
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
  // The drive's controller and buffer, or null (the platter alone).
  const DriveCache* drive() const { return drive_ ? &*drive_ : nullptr; }

  // Where the mechanism is after the last request, and when that request completed.
  const HeadState& head() const { return head_; }
  std::uint64_t served() const { return seq_; }

  // The true platter angle, in rotations [0, 1), at device time t (the model's own angle
  // when there is no rpm error). 0 for devices that do not rotate.
  double true_angle_at(Millis t) const;

 private:
  std::unique_ptr<DeviceModel> owned_;  // null when the model is borrowed
  const DeviceModel* model_;
  DeviceOptions options_;
  Jitter jitter_;
  std::optional<DriveCache> drive_;
  HeadState head_;
  std::uint64_t seq_ = 0;
  Millis period_ms_ = 0.0;   // the model's nominal rotation period
  double phase0_ = 0.0;      // the model's angle at time 0
};

}  // namespace disksched
