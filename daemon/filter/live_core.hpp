// The filter's dispatch core: the one dispatch core (schedulers/dispatch/) with the live
// head tracker as its head source, plus what only a live device needs: delta
// calibration, refitting the LBN model, and the geometry as refined so far. Free of
// nbdkit, threads and clocks, so it can be tested in virtual time.
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
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/head_tracker.hpp"
#include "predictor/profile.hpp"
#include "schedulers/dispatch/dispatch_core.hpp"
#include "schedulers/request.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched {

class LiveCore {
 public:
  struct Options {
    unsigned depth = 1;                 // requests at the device at most
    std::optional<Millis> fixed_delta;  // set: no calibration
    Millis initial_delta_ms = 0.0;
    std::size_t calibrate_first = 16;   // first calibration after this many samples
    std::size_t calibrate_every = 128;  // then after this many more
    bool refine_period = true;          // refine the rotation period from completions
    bool refine_track_phase = true;     // ... and each track's phase
    // Refit the period inside complete() (no thread to do it); off: the owner does it
    // (period_fit_due(), period_snapshot(), adopt_period_fit()).
    bool fit_period_inline = true;
  };

  LiveCore(std::unique_ptr<DeviceModel> model, std::unique_ptr<Scheduler> scheduler,
           Options options);

  // DispatchCore::arrive / complete / record: ids, records and dispatches as there.
  std::uint64_t arrive(const RequestRecord& arrival, Millis now, std::vector<std::uint64_t>& out) {
    return core_.arrive(arrival, now, out);
  }
  std::uint64_t arrive_held(RequestRecord& rec, Millis now, std::vector<std::uint64_t>& out) {
    return core_.arrive_held(rec, now, out);
  }
  const RequestRecord& complete(std::uint64_t id, Millis now, bool ok,
                                std::vector<std::uint64_t>& out) {
    return core_.complete(id, now, ok, out);
  }
  const RequestRecord& record(std::uint64_t id) const { return core_.record(id); }

  // Swaps the algorithm; queued requests move to the new one. Throws SpecError (then
  // nothing changes). Returns the new canonical spec.
  std::string switch_scheduler(std::string_view spec) { return core_.switch_scheduler(spec); }
  const std::string& scheduler_spec() const { return core_.scheduler_spec(); }

  // Delta calibration: due when enough new samples came in; take the samples (the
  // caller runs calibrate_delta on its own model instance) and set the result.
  bool calibration_due() const;
  std::vector<TrackerSample> take_calibration_samples();
  void set_delta(Millis delta_ms) { tracker_->set_delta_ms(delta_ms); }
  // Without a geometry (the LBN model): refit its terms to the samples and take the
  // whole service time into the model (delta 0). False for other models or too few
  // samples.
  bool refit_lbn(const std::vector<TrackerSample>& samples);
  Millis delta_ms() const { return tracker_->delta_ms(); }
  bool calibrating() const { return !options_.fixed_delta.has_value(); }

  // Rotation period refinement (HeadTracker): the period predictions use, the
  // profile's, and the estimator behind them (null without rotation).
  Millis period_ms() const { return tracker_->period_ms(); }
  Millis nominal_period_ms() const { return tracker_->nominal_period_ms(); }
  const RotationEstimator* period_estimator() const { return tracker_->period_estimator(); }
  void set_refine_period(bool on) { tracker_->set_refine_period(on); }
  bool period_fit_due() const { return tracker_->period_fit_due(); }
  RotationEstimator period_snapshot() const { return tracker_->period_snapshot(); }
  bool adopt_period_fit(const RotationEstimator& fitted) {
    return tracker_->adopt_period_fit(fitted);
  }
  bool refine_period() const { return tracker_->refine_period(); }
  // Per-track phase refinement (HeadTracker): tracks turned so far, corrections in all.
  void set_refine_track_phase(bool on) { tracker_->set_refine_track_phase(on); }
  bool refine_track_phase() const { return tracker_->refine_track_phase(); }
  // The geometry as refined so far (rotation period in use, every track's angle), to
  // save for the next run. Throws std::invalid_argument when the model is not a disk
  // geometry (no profile to write).
  DiskProfile current_profile() const;
  std::size_t tracks_rephased() const { return tracker_->tracks_rephased(); }
  std::uint64_t track_phase_adjustments() const { return tracker_->track_phase_adjustments(); }
  // What the head tracker learnt of the rotation: the spin predictions use and the
  // track angles corrected so far (a snapshot: calibration replays samples on it).
  const RotationState& rotation() const { return tracker_->rotation(); }
  // The tracker has seen writes complete in bus time: the device buffers them.
  bool writes_buffered() const { return tracker_->writes_buffered(); }

  const DeviceModel& model() const { return *model_; }
  unsigned depth() const { return options_.depth; }
  std::size_t queued() const { return core_.queued(); }
  std::size_t eligible() const { return core_.eligible(); }
  std::size_t in_flight() const { return core_.in_flight(); }
  const DispatchStats& stats() const { return core_.stats(); }
  std::vector<std::pair<std::string, double>> scheduler_counters() const {
    return core_.scheduler_counters();
  }

 private:
  std::unique_ptr<DeviceModel> model_;
  Options options_;
  std::unique_ptr<HeadTracker> tracker_;  // on the heap: core_ holds it by reference
  DispatchCore core_;
  std::uint64_t next_calibration_at_;
};

}  // namespace disksched
