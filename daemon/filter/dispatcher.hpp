// The thread-safe face of LiveCore for nbdkit's worker threads. A worker calls
// enter() with its request's record (live_record.hpp), which queues the request and
// blocks until the scheduler sends it to the device; the worker then does the I/O itself
// (nbdkit's per-thread context must make the call) and calls leave(). The record is
// filled in along the way and ends as the request's log line. Decisions are made inline
// by whichever thread frees the device or finds it free, so the device never waits for a
// dispatcher thread to wake; the chosen worker is woken through its own futex after the
// lock is released.
//
// Times: the clock is injected (CLOCK_MONOTONIC ns in the filter); the core runs in
// model time = real time / timescale (sched-timescale=, matching the emulator's).
// Delta calibration runs on its own thread with its own model instance, off the
// dispatch path.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "daemon/filter/class_map.hpp"
#include "daemon/filter/live_core.hpp"
#include "daemon/filter/live_record.hpp"

namespace disksched {

class Dispatcher {
 public:
  using Clock = std::function<std::int64_t()>;  // nanoseconds, monotonic
  using ModelFactory = std::function<std::unique_ptr<DeviceModel>()>;

  struct Options {
    LiveCore::Options core;
    double timescale = 1.0;       // real time = model time * timescale
    ModelFactory scratch_model;   // for calibration; empty: no background calibration
    // Told once when calibration cannot make predictions right (a wrong geometry or
    // timescale, or a device whose timing the model does not describe).
    std::function<void(const std::string&)> warn;
  };

  // Where a worker waits for its request's turn: the dispatcher fills in the record it
  // points at, then sets `granted` and wakes it.
  struct Waiter {
    std::atomic<std::uint32_t> granted{0};
    LiveRecord* record = nullptr;
  };

  // A copy of the state for the control socket.
  struct Snapshot {
    std::string scheduler;
    std::string model;
    unsigned depth = 0;
    double timescale = 1.0;
    std::size_t queued = 0, eligible = 0, in_flight = 0;
    Millis delta_ms = 0.0;        // real milliseconds
    bool calibrating = false;
    // Rotation (real milliseconds; 0 without rotation): the period predictions use, the
    // profile's, and the latest estimate from completions (used when refine_period).
    Millis rotation_ms = 0.0;
    Millis profile_rotation_ms = 0.0;
    Millis fitted_rotation_ms = 0.0;
    double fitted_uncertainty = 0.0;  // relative standard error of the estimate
    bool refine_period = false;
    bool period_refined = false;      // an estimate was adopted (at some point)
    std::size_t period_outliers = 0;  // completions in the fit window it rejected
    bool refine_track_phase = false;  // per-track phase refinement on (rotation only)
    std::size_t tracks_rephased = 0;  // tracks whose phase was corrected from completions
    std::uint64_t track_phase_adjustments = 0;  // corrections in all
    DispatchStats stats;          // times in real milliseconds
    std::vector<std::string> warnings;  // what the filter warned about (note_warning)
    // The scheduler's own counters (qos: its depth, each class's longest wait), model ms.
    std::vector<std::pair<std::string, double>> scheduler_counters;
  };

  Dispatcher(std::unique_ptr<DeviceModel> model, std::unique_ptr<Scheduler> scheduler,
             Options options, Clock clock);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Starts / stops the calibration thread (nbdkit: .after_fork / .cleanup).
  void start();
  void stop();

  // Queues the request `rec` describes (LiveRecord::arriving) and blocks until it is
  // dispatched; the record then has its id, arrival and dispatch. Throws ModelError when
  // it lies beyond the device (then nothing is queued).
  void enter(LiveRecord& rec);
  // enter() without the wait, for one thread that plays every worker in virtual time (the
  // tests): `w` is granted, and `rec` filled in, when the request is dispatched, now or
  // by a later leave(). Both must outlive that.
  void queue(LiveRecord& rec, Waiter& w);
  // The request's I/O finished (`ok` false: it failed): completes its record.
  void leave(LiveRecord& rec, bool ok);

  // Throws SpecError; returns the new canonical spec.
  std::string switch_scheduler(const std::string& spec);
  // The scheduler's canonical spec now (without copying a whole Snapshot).
  std::string scheduler() const;
  Snapshot snapshot() const;
  // Use the rotation period refined from completions (true) or the profile's.
  void set_refine_period(bool on);
  // Refine each track's phase from completions (true) or keep the profile's (tracks
  // already corrected stay so).
  void set_refine_track_phase(bool on);
  // LiveCore::current_profile, under the lock.
  DiskProfile current_profile() const;

  double timescale() const { return options_.timescale; }
  std::int64_t now_ns() const { return clock_(); }
  // Model milliseconds -> real microseconds.
  double real_us(Millis model_ms) const { return model_ms * options_.timescale * 1e3; }
  // A geometry that predicts most completions within a sector or this (real time) is
  // taken to describe the device (calibration's back-off and the warning).
  static constexpr double kJudgeToleranceUs = 100.0;
  // One sector time of the model in real microseconds (0 without rotation).
  double sector_us() const { return sector_us_; }
  std::uint64_t capacity_bytes() const { return capacity_bytes_; }
  std::uint32_t sector_bytes() const { return sector_bytes_; }
  // Keeps a warning for `ctl show` (e.g. a geometry that does not fit an export).
  void note_warning(std::string warning);

 private:
  Millis model_ms(std::int64_t ns) const {
    return static_cast<double>(ns - t0_ns_) / 1e6 / options_.timescale;
  }
  void wake(std::vector<std::uint64_t>& dispatched, std::vector<Waiter*>& woken);
  static void release(std::vector<Waiter*>& woken, const Waiter* self);
  void maybe_calibrate();
  void calibration_loop();
  // Told once, when calibration stops (LiveCore::adopt_calibration); mu_ held.
  void say_calibration_gave_up(const Calibration& c);

  Options options_;
  Clock clock_;
  std::int64_t t0_ns_;
  double sector_us_ = 0.0;
  std::uint64_t capacity_bytes_ = 0;
  std::uint32_t sector_bytes_ = 512;
  mutable std::mutex mu_;
  std::vector<std::string> warnings_;  // guarded by mu_
  LiveCore core_;
  std::shared_ptr<const std::string> spec_;
  std::unordered_map<std::uint64_t, Waiter*> waiters_;

  // Calibration thread.
  std::thread calibrator_;
  std::condition_variable calibration_cv_;
  std::vector<TrackerSample> pending_samples_;
  bool calibration_pending_ = false;
  // The period's refit, off the completion path: a snapshot waiting for the thread, and
  // whether one is being fitted.
  std::optional<RotationEstimator> pending_period_;
  bool period_fitting_ = false;
  std::uint64_t period_fits_ = 0;  // fitted on the thread
  bool stopping_ = false;
  bool warned_ = false;

};

}  // namespace disksched
