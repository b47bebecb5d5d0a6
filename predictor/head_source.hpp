// Where the scheduler believes the head is: the one thing the dispatch core asks of the
// device besides its cost model. Two answers exist. Live, the head tracker
// (predictor/head_tracker.hpp) predicts it from dispatch times and observed completions,
// as a host must. In simulation the device itself answers (emulator/device/), because
// there the device is the model and knows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/rotation_state.hpp"

namespace disksched {

// What the head source expected of one dispatched request.
struct Prediction {
  Millis dispatch_ms = 0.0;    // when it was dispatched
  HeadState from;              // predicted head state when the device starts it
  Cost cost;                   // the model's cost from `from`
  bool idle_start = false;     // dispatched to an idle device (nothing in flight)
  // Predicted time of the observed completion.
  Millis completion_ms() const { return from.time_ms + cost.service_ms(); }
  // Predicted service time as observed by the dispatcher: completion - dispatch.
  Millis observed_service_ms() const { return completion_ms() - dispatch_ms; }
};

// A track whose angle a completion corrected: the Locations cached on it are stale.
struct TurnedTrack {
  std::int64_t cylinder;
  std::int32_t head;
};

class HeadSource {
 public:
  virtual ~HeadSource() = default;

  // The head state the device would start a request from if one were dispatched at
  // `now`: after everything in flight, never before `now`.
  virtual HeadState predict(Millis now) const = 0;

  // Request `id` was dispatched at `now`. `stops`: blocks read first (one sector each,
  // SCAN's trip to the edge). Returns the prediction, valid until the next call.
  virtual const Prediction& dispatched(std::uint64_t id, Millis now, Op op,
                                       std::uint64_t offset, std::uint32_t length,
                                       std::span<const std::uint64_t> stops = {}) = 0;

  // Request `id`'s completion was observed at `now`. Returns its prediction, valid until
  // the next call (a reference: a Prediction is large and the core only reads it).
  // Throws std::invalid_argument for an id that is not in flight.
  virtual const Prediction& completed(std::uint64_t id, Millis now, bool ok) = 0;

  // Would a read of [offset, offset + length) dispatched at `now` be served whole from
  // the drive's buffer? (A head source that keeps the drive's cache state; else false.)
  virtual bool knows_hits() const { return false; }
  virtual bool hits(Millis /*now*/, std::uint64_t /*offset*/, std::uint32_t /*length*/) const {
    return false;
  }

  // The track angles learnt so far, which requests are located with (null: the model's
  // own), and the tracks the last completed() turned. A device that knows has none.
  virtual const TrackAngles* learnt_tracks() const { return nullptr; }
  virtual std::span<const TurnedTrack> turned() const { return {}; }
};

}  // namespace disksched
