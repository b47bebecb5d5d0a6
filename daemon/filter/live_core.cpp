#include "daemon/filter/live_core.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "predictor/lbn_model.hpp"
#include "predictor/disk_model.hpp"
#include "schedulers/registry.hpp"

namespace disksched {
namespace {

HeadTracker::Options tracker_options(const LiveCore::Options& o) {
  HeadTracker::Options t;
  t.delta_ms = o.fixed_delta.value_or(o.initial_delta_ms);
  t.refine_period = o.refine_period;
  t.refine_track_phase = o.refine_track_phase;
  t.fit_period_inline = o.fit_period_inline;
  return t;
}

}  // namespace

LiveCore::LiveCore(std::unique_ptr<DeviceModel> model, std::unique_ptr<Scheduler> scheduler,
                   Options options)
    : model_(std::move(model)), options_(options),
      tracker_(std::make_unique<HeadTracker>(*model_, tracker_options(options))),
      core_(std::move(scheduler), *model_, *tracker_, options.depth),
      next_calibration_at_(options.calibrate_first) {}

DiskProfile LiveCore::current_profile() const {
  const auto* disk = dynamic_cast<const DiskModel*>(model_.get());
  if (disk == nullptr)
    throw std::invalid_argument("the device runs the '" + model_->name() +
                                "' model, not a disk geometry: there is no profile to save");
  return disk->current_profile(tracker_->rotation());
}

bool LiveCore::calibration_due() const {
  return calibrating() && !gave_up_ && tracker_->samples_recorded() >= next_calibration_at_;
}

bool LiveCore::adopt_calibration(const Calibration& c) {
  if (c.samples > 0) tracker_->set_delta_ms(c.delta_ms);
  if (c.samples < kJudgedSamples) return false;
  if (c.within >= 0.5) {
    poor_in_a_row_ = 0;
    return false;
  }
  if (++poor_in_a_row_ >= kPoorCalibrations) {
    gave_up_ = true;
    return true;
  }
  next_calibration_at_ = calibration_taken_at_ + (options_.calibrate_every << poor_in_a_row_);
  return false;
}

Calibration LiveCore::calibrate_judged(const DeviceModel& scratch,
                                       const std::vector<TrackerSample>& samples,
                                       const TrackAngles* learnt, Millis judge_ms) {
  Calibration c = calibrate_delta(scratch, samples, {}, learnt);
  if (c.samples >= kJudgedSamples && c.within < 0.5 && scratch.rotational() &&
      judge_ms > scratch.sector_time_ms())
    c.within = calibrate_delta(scratch, samples, {.tolerance_ms = judge_ms}, learnt).within;
  return c;
}

bool LiveCore::refit_lbn(const std::vector<TrackerSample>& samples) {
  auto* lbn = dynamic_cast<LbnModel*>(model_.get());
  if (lbn == nullptr) return false;
  const auto p = lbn->fit(samples);
  if (!p) return false;
  lbn->set_params(*p);
  tracker_->set_delta_ms(0.0);
  return true;
}

std::vector<TrackerSample> LiveCore::take_calibration_samples() {
  calibration_taken_at_ = tracker_->samples_recorded();
  next_calibration_at_ = calibration_taken_at_ + options_.calibrate_every;
  return tracker_->samples();
}

}  // namespace disksched
