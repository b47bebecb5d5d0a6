// The filter's decision core, free of nbdkit, threads and clocks so it can be tested in
// virtual time: one queue per device, at most `depth` requests at the device, and each
// time the device has room the scheduler picks given the time and the tracked head.
//
// Every call passes the time (model milliseconds). arrive() and complete() report the
// requests they dispatched; the caller (Dispatcher) wakes the workers holding them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/head_tracker.hpp"
#include "predictor/profile.hpp"
#include "schedulers/queue.hpp"
#include "schedulers/request.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched {

// A request the core sent to the device.
struct Granted {
  std::uint64_t id = 0;
  Millis dispatch_ms = 0.0;
  std::size_t queue_len = 0;  // eligible requests the scheduler chose from (this one too)
  // Blocks to read first, one sector each, data discarded (SCAN's trip to the edge);
  // the worker reads them just before its request, so the arm moves as the model says.
  Travel travel;
  Prediction prediction;
};

// Counters since start (model milliseconds).
struct DispatchStats {
  std::uint64_t arrived = 0;
  std::uint64_t dispatched = 0;
  std::uint64_t completed = 0;   // including failed
  std::uint64_t failed = 0;
  std::uint64_t switches = 0;    // scheduler changes
  double sum_queue_len = 0;      // over dispatches
  double sum_response_ms = 0;    // arrival -> completion, over completions
  double sum_service_ms = 0;     // dispatch -> completion
  double max_response_ms = 0;
  std::uint64_t predictions_checked = 0;  // completions of a rotational model
  std::uint64_t predictions_within = 0;   // ... predicted within one sector time
};

class DispatchCore {
 public:
  struct Options {
    unsigned depth = 1;                 // requests at the device at most
    std::optional<Millis> fixed_delta;  // set: no calibration
    Millis initial_delta_ms = 0.0;
    std::size_t calibrate_first = 16;   // first calibration after this many samples
    std::size_t calibrate_every = 128;  // then after this many more
    bool refine_period = true;          // refine the rotation period from completions
    bool refine_track_phase = true;     // ... and each track's phase
  };

  DispatchCore(std::unique_ptr<DeviceModel> model, std::unique_ptr<Scheduler> scheduler,
               Options options);

  // A request arrived at `now` (its arrival_ms is set to `now`). Throws ModelError
  // when it lies beyond the device (then nothing is queued).
  void arrive(Request r, Millis now, std::vector<Granted>& out);
  // Request `id` completed at the device at `now`. Returns its prediction.
  Prediction complete(std::uint64_t id, Millis now, bool ok, std::vector<Granted>& out);

  // Swaps the algorithm; queued requests move to the new one. Throws SpecError (then
  // nothing changes). Returns the new canonical spec.
  std::string switch_scheduler(std::string_view spec);
  const std::string& scheduler_spec() const { return spec_; }

  // Delta calibration: due when enough new samples came in; take the samples (the
  // caller runs calibrate_delta on its own model instance) and set the result.
  bool calibration_due() const;
  std::vector<TrackerSample> take_calibration_samples();
  void set_delta(Millis delta_ms) { tracker_.set_delta_ms(delta_ms); }
  // Without a geometry (the LBN model): refit its terms to the samples and take the
  // whole service time into the model (delta 0). False for other models or too few
  // samples.
  bool refit_lbn(const std::vector<TrackerSample>& samples);
  Millis delta_ms() const { return tracker_.delta_ms(); }
  bool calibrating() const { return !options_.fixed_delta.has_value(); }

  // Rotation period refinement (HeadTracker): the period predictions use, the
  // profile's, and the estimator behind them (null without rotation).
  Millis period_ms() const { return tracker_.period_ms(); }
  Millis nominal_period_ms() const { return tracker_.nominal_period_ms(); }
  const RotationEstimator* period_estimator() const { return tracker_.period_estimator(); }
  void set_refine_period(bool on) { tracker_.set_refine_period(on); }
  bool refine_period() const { return tracker_.refine_period(); }
  // Per-track phase refinement (HeadTracker): tracks turned so far, corrections in all.
  void set_refine_track_phase(bool on) { tracker_.set_refine_track_phase(on); }
  bool refine_track_phase() const { return tracker_.refine_track_phase(); }
  // The geometry as refined so far (rotation period in use, every track's angle), to
  // save for the next run. Throws std::invalid_argument when the model is not a disk
  // geometry (no profile to write).
  DiskProfile current_profile() const;
  std::size_t tracks_rephased() const { return tracker_.tracks_rephased(); }
  std::uint64_t track_phase_adjustments() const { return tracker_.track_phase_adjustments(); }
  // What the head tracker learnt of the rotation: the spin predictions use and the
  // track angles corrected so far (a snapshot: calibration replays samples on it).
  const RotationState& rotation() const { return tracker_.rotation(); }

  const DeviceModel& model() const { return *model_; }
  unsigned depth() const { return options_.depth; }
  std::size_t queued() const { return queue_.queued(); }
  std::size_t eligible() const { return queue_.eligible(); }
  std::size_t in_flight() const { return queue_.in_flight(); }
  const DispatchStats& stats() const { return stats_; }

 private:
  void pump(Millis now, std::vector<Granted>& out);

  struct Active {
    Op op = Op::Read;
    Millis arrival_ms = 0.0;
    Millis dispatch_ms = 0.0;
  };

  std::unique_ptr<DeviceModel> model_;
  Options options_;
  RequestQueue queue_;
  HeadTracker tracker_;
  std::string spec_;
  std::unordered_map<std::uint64_t, Active> active_;
  DispatchStats stats_;
  std::uint64_t next_calibration_at_;
};

}  // namespace disksched
