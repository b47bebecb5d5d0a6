#include "daemon/filter/dispatcher.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "common/futex.hpp"

namespace disksched {
namespace {

// With a calibration thread (delta calibrated, a scratch model to replay on) the period's
// refit runs there, not in the completion that makes it due.
LiveCore::Options core_options(const Dispatcher::Options& o) {
  LiveCore::Options c = o.core;
  if (!c.fixed_delta && o.scratch_model) c.fit_period_inline = false;
  return c;
}

}  // namespace

Dispatcher::Dispatcher(std::unique_ptr<DeviceModel> model, std::unique_ptr<Scheduler> scheduler,
                       Options options, Clock clock)
    : options_(std::move(options)), clock_(std::move(clock)), t0_ns_(clock_()),
      core_(std::move(model), std::move(scheduler), core_options(options_)),
      spec_(std::make_shared<const std::string>(core_.core().scheduler_spec())) {
  sector_us_ = real_us(core_.model().sector_time_ms());
  capacity_bytes_ = core_.model().capacity_bytes();
  sector_bytes_ = core_.model().sector_bytes();
}

Dispatcher::~Dispatcher() { stop(); }

void Dispatcher::start() {
  std::lock_guard lock(mu_);
  stopping_ = false;
  if (!calibrator_.joinable() && core_.calibrating() && options_.scratch_model)
    calibrator_ = std::thread([this] { calibration_loop(); });
}

void Dispatcher::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  calibration_cv_.notify_all();
  if (calibrator_.joinable()) calibrator_.join();
}

void Dispatcher::wake(std::vector<std::uint64_t>& dispatched, std::vector<Waiter*>& woken) {
  // Called with mu_ held: adds the live world's part to each dispatched request's
  // record (the core has filled in its own part in place) and hands it to its waiter (which stops being findable); release() signals them once the
  // lock is dropped. The dispatch time is taken after the scheduler decided, so the log's
  // completion -> dispatch gap includes the decision.
  if (dispatched.empty()) return;
  const std::int64_t now_ns = clock_();
  for (const std::uint64_t id : dispatched) {
    auto it = waiters_.find(id);
    Waiter* w = it->second;
    waiters_.erase(it);
    LiveRecord& rec = *w->record;  // its core part filled in place by the core
    rec.dispatch_ns = now_ns;
    rec.predicted = true;
    rec.timescale = options_.timescale;
    rec.sector_us = sector_us_;
    rec.scheduler = spec_;
    woken.push_back(w);
  }
  dispatched.clear();
}

void Dispatcher::release(std::vector<Waiter*>& woken, const Waiter* self) {
  // Outside the lock: a woken worker runs at once instead of queueing for mu_. Each
  // Waiter belongs to its worker thread (thread_local), so it outlives this call even
  // when the worker returns before futex_wake does.
  for (Waiter* w : woken) {
    w->granted.store(1, std::memory_order_release);
    if (w != self) futex_wake(w->granted);  // the arriving worker need not wake itself
  }
  woken.clear();
}

void Dispatcher::enter(LiveRecord& rec) {
  static thread_local Waiter me;
  queue(rec, me);
  while (me.granted.load(std::memory_order_acquire) != 1) futex_wait(me.granted, 0);
}

void Dispatcher::queue(LiveRecord& rec, Waiter& w) {
  w.granted.store(0, std::memory_order_relaxed);
  w.record = &rec;
  std::vector<std::uint64_t> grants;
  std::vector<Waiter*> woken;
  {
    std::lock_guard lock(mu_);
    rec.arrive_ns = clock_();
    rec.core.limit_ms = rec.limit_ms / options_.timescale;
    // Held in place from here to completion; throws: nothing queued.
    const std::uint64_t id = core_.arrive_held(rec.core, model_ms(rec.arrive_ns), grants);
    waiters_[id] = &w;
    wake(grants, woken);
  }
  release(woken, &w);
}

void Dispatcher::leave(LiveRecord& rec, bool ok) {
  std::vector<std::uint64_t> grants;
  std::vector<Waiter*> woken;
  {
    std::lock_guard lock(mu_);
    rec.complete_ns = clock_();
    core_.complete(rec.id(), model_ms(rec.complete_ns), ok, grants);  // fills rec.core
    wake(grants, woken);
    maybe_calibrate();
  }
  release(woken, nullptr);
}

void Dispatcher::maybe_calibrate() {
  if (core_.tracker().period_fit_due() && !period_fitting_) {
    if (calibrator_.joinable()) {
      pending_period_.emplace(core_.tracker().period_snapshot());
      period_fitting_ = true;
      calibration_cv_.notify_one();
    } else {
      // No thread (not started): fitted here.
      core_.tracker().adopt_period_fit(core_.tracker().period_snapshot().fitted());
    }
  }
  if (!calibrator_.joinable() || calibration_pending_ || !core_.calibration_due()) return;
  pending_samples_ = core_.take_calibration_samples();
  calibration_pending_ = true;
  calibration_cv_.notify_one();
}

void Dispatcher::calibration_loop() {
  std::unique_ptr<DeviceModel> scratch = options_.scratch_model();
  std::unique_lock lock(mu_);
  for (;;) {
    calibration_cv_.wait(lock, [&] {
      return stopping_ || calibration_pending_ || pending_period_.has_value();
    });
    if (stopping_) return;
    if (pending_period_) {
      const RotationEstimator snapshot = std::move(*pending_period_);
      pending_period_.reset();
      lock.unlock();
      const RotationEstimator fitted = snapshot.fitted();
      lock.lock();
      core_.tracker().adopt_period_fit(fitted);
      ++period_fits_;
      period_fitting_ = false;
      continue;
    }
    std::vector<TrackerSample> samples = std::move(pending_samples_);
    // Replay the samples on the tracks as the tracker now has them.
    const std::shared_ptr<const TrackAngles> learnt = core_.tracker().rotation().tracks;
    // Without a geometry: fit the LBN model's terms (cheap) instead of delta alone.
    if (core_.refit_lbn(samples)) {
      calibration_pending_ = false;
      continue;
    }
    lock.unlock();
    const Millis judge_ms = std::max(scratch->sector_time_ms(), kJudgeToleranceUs / real_us(1.0));
    const Calibration c = LiveCore::calibrate_judged(*scratch, samples, learnt.get(), judge_ms);
    lock.lock();
    calibration_pending_ = false;
    if (core_.adopt_calibration(c)) say_calibration_gave_up(c);
    // Only a rotating disk's model claims sector-time accuracy.
    if (c.samples >= LiveCore::kJudgedSamples && c.within < 0.5 && !warned_ && options_.warn &&
        core_.model().rotational()) {
      warned_ = true;
      options_.warn(fmt::format(
          "only {:.0f}% of the last {} requests were predicted within a sector or {:.0f} us for "
          "any delta: does the geometry ({}) describe the device, and does sched-timescale ({}) "
          "match its speed?",
          100 * c.within, c.samples, kJudgeToleranceUs, core_.model().name(), options_.timescale) +
          (core_.tracker().writes_buffered()
               ? " (writes complete in bus time here: the device has a write cache. They are "
                 "predicted as buffered and leave the head where the last read left it; the "
                 "cache's destages are invisible from the host, so reads after them may be "
                 "off. A write-through device (diskemu write-cache=0) predicts exactly.)"
               : ""));
    }
  }
}

void Dispatcher::say_calibration_gave_up(const Calibration& c) {
  std::string m = fmt::format(
      "delta calibration gave up: {} attempts in a row (each after twice as many requests "
      "as the one before) predicted only {:.0f}% of the last {} requests within the "
      "tolerance; the model ({}) does not describe this device's timing. Delta stays at "
      "{:.1f} us; give sched-delta= to set it",
      LiveCore::kPoorCalibrations, 100 * c.within, c.samples, core_.model().name(),
      real_us(core_.tracker().delta_ms()));
  if (options_.warn) options_.warn(m);
  warnings_.push_back(std::move(m));
}

std::string Dispatcher::switch_scheduler(const std::string& spec) {
  std::lock_guard lock(mu_);
  std::string s = core_.switch_scheduler(spec);
  spec_ = std::make_shared<const std::string>(s);
  return s;
}

std::string Dispatcher::scheduler() const {
  std::lock_guard lock(mu_);
  return *spec_;
}

void Dispatcher::set_refine_period(bool on) {
  std::lock_guard lock(mu_);
  core_.tracker().set_refine_period(on);
}

void Dispatcher::set_refine_track_phase(bool on) {
  std::lock_guard lock(mu_);
  core_.tracker().set_refine_track_phase(on);
}

DiskProfile Dispatcher::current_profile() const {
  std::lock_guard lock(mu_);
  return core_.current_profile();
}

Dispatcher::Snapshot Dispatcher::snapshot() const {
  std::lock_guard lock(mu_);
  const DispatchCore& core = core_.core();
  const HeadTracker& tracker = core_.tracker();
  Snapshot s;
  s.scheduler = core.scheduler_spec();
  s.model = core_.model().name();
  s.depth = core_.depth();
  s.timescale = options_.timescale;
  s.queued = core.queued();
  s.eligible = core.eligible();
  s.in_flight = core.in_flight();
  s.delta_ms = tracker.delta_ms() * options_.timescale;
  s.calibrating = core_.calibrating();
  s.rotation_ms = tracker.period_ms() * options_.timescale;
  s.profile_rotation_ms = tracker.nominal_period_ms() * options_.timescale;
  s.refine_period = tracker.refine_period();
  if (const RotationEstimator* e = tracker.period_estimator()) {
    s.fitted_rotation_ms = e->fitted_period_ms() * options_.timescale;
    s.fitted_uncertainty = e->fitted_uncertainty();
    s.period_refined = e->period_refined();
    s.period_outliers = e->outliers();
  }
  s.refine_track_phase = core_.model().rotational() && tracker.refine_track_phase();
  s.tracks_rephased = tracker.tracks_rephased();
  s.track_phase_adjustments = tracker.track_phase_adjustments();
  s.stats = core.stats();
  s.stats.sum_response_ms *= options_.timescale;
  s.stats.sum_service_ms *= options_.timescale;
  s.stats.max_response_ms *= options_.timescale;
  s.warnings = warnings_;
  s.scheduler_counters = core.scheduler_counters();
  return s;
}

void Dispatcher::note_warning(std::string warning) {
  std::lock_guard lock(mu_);
  warnings_.push_back(std::move(warning));
}

}  // namespace disksched
