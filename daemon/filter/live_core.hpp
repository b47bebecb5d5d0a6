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

  // The dispatch core's state (queue lengths, counters, the scheduler's spec) and the
  // head tracker (delta, rotation period and track phases learnt from completions):
  // read and set there.
  const DispatchCore& core() const { return core_; }
  HeadTracker& tracker() { return *tracker_; }
  const HeadTracker& tracker() const { return *tracker_; }

  // Delta calibration: due when enough new samples came in; take the samples (the
  // caller runs calibrate_delta on its own model instance) and hand the result to
  // adopt_calibration().
  bool calibration_due() const;
  std::vector<TrackerSample> take_calibration_samples();
  // Sets delta from a calibration and judges it. One that predicts under half of
  // kJudgedSamples or more samples within the tolerance (a device the model does not
  // describe: the memory plugin under a disk geometry) doubles the wait before the next
  // attempt, since each costs a replay of every sample at every delta; after
  // kPoorCalibrations such attempts in a row calibration stops, and delta stays. A good
  // one brings the wait back to calibrate_every. Returns true the one time it gives up.
  bool adopt_calibration(const Calibration& c);
  bool calibration_gave_up() const { return gave_up_; }
  unsigned poor_calibrations() const { return poor_in_a_row_; }
  static constexpr std::size_t kJudgedSamples = 64;
  static constexpr unsigned kPoorCalibrations = 8;
  // Calibrates delta on `scratch` (the caller's model instance) at a sector's tolerance;
  // where most samples miss that, their share `within` is taken again at `judge_ms`, what
  // the host can resolve: a drive of today's sector (2.3 us) passes faster than
  // completions reach the filter steadily, while a geometry that does not describe the
  // device misses by much more. The delta stays the sector tolerance's.
  static Calibration calibrate_judged(const DeviceModel& scratch,
                                      const std::vector<TrackerSample>& samples,
                                      const TrackAngles* learnt, Millis judge_ms);
  // Without a geometry (the LBN model): refit its terms to the samples and take the
  // whole service time into the model (delta 0). False for other models or too few
  // samples.
  bool refit_lbn(const std::vector<TrackerSample>& samples);
  bool calibrating() const { return !options_.fixed_delta.has_value(); }

  // The geometry as refined so far (rotation period in use, every track's angle), to
  // save for the next run. Throws std::invalid_argument when the model is not a disk
  // geometry (no profile to write).
  DiskProfile current_profile() const;

  const DeviceModel& model() const { return *model_; }
  unsigned depth() const { return options_.depth; }

 private:
  std::unique_ptr<DeviceModel> model_;
  Options options_;
  std::unique_ptr<HeadTracker> tracker_;  // on the heap: core_ holds it by reference
  DispatchCore core_;
  std::uint64_t next_calibration_at_;
  std::uint64_t calibration_taken_at_ = 0;  // samples recorded at the last attempt
  unsigned poor_in_a_row_ = 0;
  bool gave_up_ = false;
};

}  // namespace disksched
