#include "daemon/filter/dispatcher.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace disksched {
namespace {

// Raw futexes: libstdc++ 12's std::atomic::wait can miss a notify_one and sleep for
// milliseconds (fixed in GCC 13), which would stall the device.
void futex_wait(std::atomic<std::uint32_t>& a, std::uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&a), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

void futex_wake(std::atomic<std::uint32_t>& a) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&a), FUTEX_WAKE_PRIVATE, 1, nullptr,
          nullptr, 0);
}

}  // namespace

Dispatcher::Dispatcher(std::unique_ptr<DeviceModel> model, std::unique_ptr<Scheduler> scheduler,
                       Options options, Clock clock)
    : options_(std::move(options)), clock_(std::move(clock)), t0_ns_(clock_()),
      core_(std::move(model), std::move(scheduler), options_.core),
      spec_(std::make_shared<const std::string>(core_.scheduler_spec())) {
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
  // Called with mu_ held: hands each grant to its waiter (which stops being findable);
  // release() signals them once the lock is dropped. The dispatch time is taken after
  // the scheduler decided, so the log's completion -> dispatch gap includes the decision.
  if (dispatched.empty()) return;
  const std::int64_t now_ns = clock_();
  for (const std::uint64_t id : dispatched) {
    auto it = waiters_.find(id);
    Waiter* w = it->second;
    waiters_.erase(it);
    const RequestRecord& rec = core_.record(id);
    w->queue_len = rec.queue_len;
    w->travel = rec.travel;
    w->prediction = rec.prediction;
    w->dispatch_ns = now_ns;
    w->scheduler = spec_;
    woken.push_back(w);
  }
  dispatched.clear();
}

void Dispatcher::release(std::vector<Waiter*>& woken, const Waiter* self) {
  // Outside the lock: a woken worker runs at once instead of queueing for mu_. Each
  // Waiter belongs to its worker thread (thread_local), so it outlives this call even
  // when the worker returns before futex_wake does.
  for (Waiter* w : woken) {
    w->state.store(1, std::memory_order_release);
    if (w != self) futex_wake(w->state);  // the arriving worker need not wake itself
  }
  woken.clear();
}

Dispatcher::Ticket Dispatcher::enter(Op op, std::uint64_t offset, std::uint32_t length,
                                     std::uint32_t flags, ClassAssignment cls) {
  static thread_local Waiter me;
  me.state.store(0, std::memory_order_relaxed);
  std::vector<std::uint64_t> grants;
  std::vector<Waiter*> woken;
  Ticket t;
  {
    std::lock_guard lock(mu_);
    t.arrive_ns = clock_();
    Request r;
    r.op = op;
    r.offset = offset;
    r.length = length;
    r.flags = flags;
    r.cls = cls.cls;
    r.limit_ms = cls.limit_ms / options_.timescale;
    t.id = core_.arrive(r, model_ms(t.arrive_ns), grants);  // throws: nothing queued
    waiters_[t.id] = &me;
    wake(grants, woken);
  }
  release(woken, &me);
  wait_for_grant(me);
  t.dispatch_ns = me.dispatch_ns;
  t.queue_len = me.queue_len;
  t.travel = me.travel;
  t.prediction = me.prediction;
  t.scheduler = std::move(me.scheduler);
  return t;
}

void Dispatcher::wait_for_grant(Waiter& me) {
  while (me.state.load(std::memory_order_acquire) != 1) futex_wait(me.state, 0);
}

std::int64_t Dispatcher::leave(const Ticket& t, bool ok) {
  std::vector<std::uint64_t> grants;
  std::vector<Waiter*> woken;
  std::int64_t now;
  {
    std::lock_guard lock(mu_);
    now = clock_();
    core_.complete(t.id, model_ms(now), ok, grants);
    wake(grants, woken);
    maybe_calibrate();
  }
  release(woken, nullptr);
  return now;
}

void Dispatcher::maybe_calibrate() {
  if (!calibrator_.joinable() || calibration_pending_ || !core_.calibration_due()) return;
  pending_samples_ = core_.take_calibration_samples();
  calibration_pending_ = true;
  calibration_cv_.notify_one();
}

void Dispatcher::calibration_loop() {
  std::unique_ptr<DeviceModel> scratch = options_.scratch_model();
  std::unique_lock lock(mu_);
  for (;;) {
    calibration_cv_.wait(lock, [&] { return stopping_ || calibration_pending_; });
    if (stopping_) return;
    std::vector<TrackerSample> samples = std::move(pending_samples_);
    // Replay the samples on the tracks as the live model now has them.
    core_.sync_track_phases(*scratch);
    // Without a geometry: fit the LBN model's terms (cheap) instead of delta alone.
    if (core_.refit_lbn(samples)) {
      calibration_pending_ = false;
      continue;
    }
    lock.unlock();
    const Calibration c = calibrate_delta(*scratch, samples);
    lock.lock();
    calibration_pending_ = false;
    if (c.samples > 0) core_.set_delta(c.delta_ms);
    // Only a rotating disk's model claims sector-time accuracy.
    if (c.samples >= 64 && c.within < 0.5 && !warned_ && options_.warn &&
        core_.model().rotational()) {
      warned_ = true;
      options_.warn(fmt::format(
          "only {:.0f}% of the last {} requests were predicted within the tolerance for any "
          "delta: does the geometry ({}) describe the device, and does sched-timescale ({}) "
          "match its speed?",
          100 * c.within, c.samples, core_.model().name(), options_.timescale));
    }
  }
}

std::string Dispatcher::switch_scheduler(const std::string& spec) {
  std::lock_guard lock(mu_);
  std::string s = core_.switch_scheduler(spec);
  spec_ = std::make_shared<const std::string>(s);
  return s;
}

void Dispatcher::set_refine_period(bool on) {
  std::lock_guard lock(mu_);
  core_.set_refine_period(on);
}

void Dispatcher::set_refine_track_phase(bool on) {
  std::lock_guard lock(mu_);
  core_.set_refine_track_phase(on);
}

DiskProfile Dispatcher::current_profile() const {
  std::lock_guard lock(mu_);
  return core_.current_profile();
}

Dispatcher::Snapshot Dispatcher::snapshot() const {
  std::lock_guard lock(mu_);
  Snapshot s;
  s.scheduler = core_.scheduler_spec();
  s.model = core_.model().name();
  s.depth = core_.depth();
  s.timescale = options_.timescale;
  s.queued = core_.queued();
  s.eligible = core_.eligible();
  s.in_flight = core_.in_flight();
  s.delta_ms = core_.delta_ms() * options_.timescale;
  s.calibrating = core_.calibrating();
  s.rotation_ms = core_.period_ms() * options_.timescale;
  s.profile_rotation_ms = core_.nominal_period_ms() * options_.timescale;
  s.refine_period = core_.refine_period();
  if (const RotationEstimator* e = core_.period_estimator()) {
    s.fitted_rotation_ms = e->fitted_period_ms() * options_.timescale;
    s.fitted_uncertainty = e->fitted_uncertainty();
    s.period_refined = e->period_refined();
    s.period_outliers = e->outliers();
  }
  s.refine_track_phase = core_.model().rotational() && core_.refine_track_phase();
  s.tracks_rephased = core_.tracks_rephased();
  s.track_phase_adjustments = core_.track_phase_adjustments();
  s.stats = core_.stats();
  s.stats.sum_response_ms *= options_.timescale;
  s.stats.sum_service_ms *= options_.timescale;
  s.stats.max_response_ms *= options_.timescale;
  return s;
}

}  // namespace disksched
