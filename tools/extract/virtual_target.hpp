// A probe target that plays a DeviceModel exactly on a virtual clock, with the host
// noise a real machine adds (so the extraction's noise handling is tested without
// hardware and without wall-clock time).
//
// Host path model: a request reaches the device `issue_latency` after it is issued
// and its completion is seen `completion_latency` after the device finishes. Both are
// a base plus exponentially distributed jitter (the completion also a symmetric
// uniform one, `completion_uniform_ms`); now and then a preemption adds a
// longer delay to one side (the probe is then flagged `disturbed` with probability
// `preemption_flagged`, like a context switch counted by getrusage). A busy host adds
// two more: completions seen late (`late_rate`, never flagged: a server that woke late;
// uniform between two bounds, or exponential with `late_mean_ms`) and probes flagged though nothing delayed them (`flag_rate`: a thread that keeps
// losing the CPU while it waits). `rpm_error`
// makes the platter spin at (1 + rpm_error) times the model's speed, so the true
// period differs from the model's nominal one. A profile with a controller, bus or cache
// block is served through the drive's buffer (predictor/drive_cache.hpp) as the emulated
// device serves it: hits, read-ahead and write-behind answer probes as they would on the
// drive.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string_view>

#include "predictor/device_model.hpp"
#include "predictor/drive_cache.hpp"
#include "tools/extract/virtual_clock_target.hpp"

namespace disksched::extract {

struct HostNoise {
  Millis issue_base_ms = 0.0;       // fixed host latency before the device sees a request
  Millis issue_jitter_ms = 0.0;     // mean of the exponential jitter added to it
  Millis completion_base_ms = 0.0;  // fixed latency after the device finishes
  Millis completion_jitter_ms = 0.0;
  // Symmetric measurement noise: each completion seen up to this much early or late
  // (uniform; completion_base_ms should be at least as large).
  Millis completion_uniform_ms = 0.0;
  double preemption_rate = 0.0;     // probability per probe of a preemption
  Millis preemption_min_ms = 0.3, preemption_max_ms = 5.0;
  double preemption_flagged = 1.0;  // probability that a preemption is flagged
  double late_rate = 0.0;           // probability per probe of a completion seen late
  Millis late_min_ms = 0.2, late_max_ms = 8.0;
  // When > 0, a late completion is late by an exponential amount of this mean instead
  // (late_min_ms and late_max_ms unused): a heavy tail of small and large delays, as a
  // real-time server on a shared host shows (many late by a fraction of a sector, a few
  // by several).
  Millis late_mean_ms = 0.0;
  double flag_rate = 0.0;           // probability per probe of a flag with no delay
  // A completion delay that wanders slowly (a sine of this amplitude and period): the
  // real-time host's timing offset drifts by a few hundredths of a millisecond over
  // seconds, so two phases read seconds apart disagree by more than two read back to back.
  Millis wander_ms = 0.0;
  Millis wander_period_ms = 10'000.0;
  double rpm_error = 0.0;           // true speed = (1 + rpm_error) * nominal
  std::uint64_t seed = 1;
};

// The host noise `extract --virtual --noise NAME` plays, with this seed (nullopt for an
// unknown name; noise_preset_names() lists them):
//  - none: a perfect host;
//  - vm: a virtual machine's small issue and completion jitter, a preemption in 200;
//  - late: what an `nbdkit diskemu` run in real time showed on this 2-core VM (README:
//    completion jitter 0.086 ms, 12 % of reference completions late): every completion
//    seen 0.05 +- 0.01 ms after the device's plus an exponential 0.06 ms, and three in
//    ten later still, by an exponential 0.6 ms;
//  - busy: `late`, and every request reaching the device late by an exponential 0.08
//    ms as well (a busy host): a zone crossing's pairs of seeks then scatter by 1-2
//    cylinders, as in the real-time runs, where `late` alone gives 0.2.
std::optional<HostNoise> noise_preset(std::string_view name, std::uint64_t seed);
std::string_view noise_preset_names();

class VirtualTarget final : public VirtualClockTarget {
 public:
  // Takes the model; `rpm_error` re-anchors its rotation at (1 + e) times the speed.
  VirtualTarget(std::unique_ptr<DeviceModel> model, HostNoise noise);

  std::string describe() const override;
  std::uint32_t sector_bytes() const override { return model_->sector_bytes(); }
  std::uint64_t sectors() const override {
    return model_->capacity_bytes() / model_->sector_bytes();
  }
  ProbeResult read(std::uint64_t lba, std::uint32_t count) override;
  ProbeResult write(std::uint64_t lba, std::uint32_t count) override;
  std::optional<ProbeResult> write_buffered(std::uint64_t lba, std::uint32_t count) override;
  std::optional<Millis> null_round_trip_ms() override;

  // The truth, for tests.
  const DeviceModel& model() const { return *model_; }
  Millis true_rotation_ms() const {
    return head_.spin.given() ? head_.spin.period_ms : model_->rotation_ms();
  }
  std::uint64_t probes() const { return probes_; }
  // Probes the drive's buffer answered (0 without a cache).
  std::uint64_t hits() const { return hits_; }

 private:
  ProbeResult serve(Op op, std::uint64_t lba, std::uint32_t count, bool fua = true);
  Millis jitter(Millis mean);

  std::unique_ptr<DeviceModel> model_;
  HostNoise noise_;
  std::mt19937_64 rng_;
  HeadState head_;
  std::optional<DriveCache> drive_;  // the controller and buffer, when the profile has one
  std::uint64_t probes_ = 0;
  std::uint64_t hits_ = 0;
  std::FILE* trace_ = nullptr;  // DISKSCHED_VT_TRACE set: every request served, on stderr
};

}  // namespace disksched::extract
