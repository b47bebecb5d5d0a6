// Where the scheduler believes the head is: the one thing the dispatch core asks of the
// device besides its cost model. Two answers exist. Live, the head tracker
// (predictor/head_tracker.hpp) predicts it from dispatch times and observed completions,
// as a host must. In simulation the device itself answers (emulator/device/), because
// there the device is the model and knows.
#pragma once

#include <cstdint>
#include <span>

#include "predictor/device_model.hpp"

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

  // Request `id`'s completion was observed at `now`. Returns its prediction. Throws
  // std::invalid_argument for an id that is not in flight.
  virtual Prediction completed(std::uint64_t id, Millis now, bool ok) = 0;
};

}  // namespace disksched
