#include "daemon/filter/dispatcher.hpp"

#include <sys/prctl.h>

#include <chrono>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace disksched {

Dispatcher::Dispatcher(std::unique_ptr<DeviceModel> model, std::unique_ptr<Scheduler> scheduler,
                       Options options, Clock clock)
    : options_(std::move(options)), clock_(std::move(clock)), t0_ns_(clock_()),
      core_(std::move(model), std::move(scheduler), options_.core),
      spec_(std::make_shared<const std::string>(core_.scheduler_spec())) {
  sector_us_ = real_us(core_.model().sector_time_ms());
  capacity_bytes_ = core_.model().capacity_bytes();
}

Dispatcher::~Dispatcher() { stop(); }

void Dispatcher::start() {
  std::lock_guard lock(mu_);
  stopping_ = false;
  if (!calibrator_.joinable() && core_.calibrating() && options_.scratch_model)
    calibrator_ = std::thread([this] { calibration_loop(); });
  if (!predispatcher_.joinable() && options_.lead_ns > 0)
    predispatcher_ = std::thread([this] { predispatch_loop(); });
}

void Dispatcher::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  calibration_cv_.notify_all();
  predispatch_cv_.notify_all();
  if (calibrator_.joinable()) calibrator_.join();
  if (predispatcher_.joinable()) predispatcher_.join();
}

void Dispatcher::wake(std::vector<Granted>& grants, std::vector<Waiter*>& woken) {
  // Called with mu_ held: hands each grant to its waiter (which stops being findable);
  // release() signals them once the lock is dropped. The dispatch time is taken after
  // the scheduler decided, so the log's completion -> dispatch gap includes the decision.
  if (grants.empty()) return;
  const std::int64_t now_ns = clock_();
  for (auto& g : grants) {
    auto it = waiters_.find(g.id);
    Waiter* w = it->second;
    waiters_.erase(it);
    w->grant = g;
    w->dispatch_ns = now_ns;
    w->scheduler = spec_;
    woken.push_back(w);
  }
  grants.clear();
}

void Dispatcher::release(std::vector<Waiter*>& woken) {
  // Outside the lock: a woken worker runs at once instead of queueing for mu_. State 2
  // tells it this thread no longer touches its Waiter (which lives on its stack).
  for (Waiter* w : woken) {
    w->state.store(1, std::memory_order_release);
    w->state.notify_one();
    w->state.store(2, std::memory_order_release);
  }
  woken.clear();
}

Dispatcher::Ticket Dispatcher::enter(Op op, std::uint64_t offset, std::uint32_t length,
                                     std::uint32_t flags, ClassAssignment cls) {
  Waiter me;
  std::vector<Granted> grants;
  std::vector<Waiter*> woken;
  Ticket t;
  {
    std::lock_guard lock(mu_);
    t.id = next_id_++;
    t.arrive_ns = clock_();
    Request r;
    r.id = t.id;
    r.op = op;
    r.offset = offset;
    r.length = length;
    r.flags = flags;
    r.cls = cls.cls;
    r.limit_ms = cls.limit_ms / options_.timescale;
    waiters_[t.id] = &me;
    try {
      core_.arrive(r, model_ms(t.arrive_ns), grants);
    } catch (...) {
      waiters_.erase(t.id);
      throw;
    }
    wake(grants, woken);
  }
  if (options_.lead_ns > 0) predispatch_cv_.notify_one();
  release(woken);
  wait_for_grant(me);
  t.dispatch_ns = me.dispatch_ns;
  t.queue_len = me.grant.queue_len;
  t.prediction = me.grant.prediction;
  t.scheduler = std::move(me.scheduler);
  return t;
}

void Dispatcher::wait_for_grant(Waiter& me) const {
  std::int64_t spin_until = 0;
  for (std::uint32_t s = me.state.load(std::memory_order_acquire); s != 2;
       s = me.state.load(std::memory_order_acquire)) {
    if (s == 0) {
      me.state.wait(0, std::memory_order_acquire);
    } else if (s == 3) {
      // Reserved: the device frees up soon; spin so the start is not a wake-up away.
      const std::int64_t now = clock_();
      if (spin_until == 0) spin_until = now + options_.spin_ns;
      if (now > spin_until) me.state.wait(3, std::memory_order_acquire);
      __builtin_ia32_pause();
    }
    // 1: the grant is being released; it turns 2 at once.
  }
}

std::int64_t Dispatcher::leave(const Ticket& t, bool ok) {
  std::vector<Granted> grants;
  std::vector<Waiter*> woken;
  std::int64_t now;
  {
    std::lock_guard lock(mu_);
    now = clock_();
    core_.complete(t.id, model_ms(now), ok, grants);
    wake(grants, woken);
    maybe_calibrate();
  }
  release(woken);
  if (options_.lead_ns > 0) predispatch_cv_.notify_one();
  return now;
}

void Dispatcher::predispatch_loop() {
  // Wake-ups of this thread are not on the critical path, but they must be on time.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const Millis next = core_.next_completion_ms();
    if (core_.reserved() || !std::isfinite(next) || core_.eligible() == 0) {
      predispatch_cv_.wait(lock);
      continue;
    }
    // The model time `lead` before the predicted completion, as a real time.
    const auto due_ns = t0_ns_ + static_cast<std::int64_t>(next * options_.timescale * 1e6) -
                        options_.lead_ns;
    const std::int64_t now = clock_();
    if (now < due_ns) {
      predispatch_cv_.wait_for(lock, std::chrono::nanoseconds(due_ns - now));
      continue;
    }
    const auto id = core_.reserve(model_ms(now));
    if (!id) {
      predispatch_cv_.wait(lock);
      continue;
    }
    // Under mu_: the grant (which ends the waiter's life) cannot come before this.
    Waiter* w = waiters_.at(*id);
    w->state.store(3, std::memory_order_release);
    w->state.notify_one();
  }
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
  s.stats = core_.stats();
  s.stats.sum_response_ms *= options_.timescale;
  s.stats.sum_service_ms *= options_.timescale;
  s.stats.max_response_ms *= options_.timescale;
  return s;
}

}  // namespace disksched
