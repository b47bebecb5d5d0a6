#include "tools/extract/virtual_target.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>

#include "predictor/disk_model.hpp"

#include <fmt/format.h>

namespace disksched::extract {

std::optional<HostNoise> noise_preset(std::string_view name, std::uint64_t seed) {
  HostNoise n;
  n.seed = seed;
  if (name == "none") return n;
  if (name == "vm") {
    n.issue_base_ms = 0.03;
    n.issue_jitter_ms = 0.02;
    n.completion_base_ms = 0.02;
    n.completion_jitter_ms = 0.01;
    n.preemption_rate = 0.005;
    n.preemption_flagged = 0.5;
    return n;
  }
  if (name == "late" || name == "busy") {
    n.completion_base_ms = 0.05;
    n.completion_uniform_ms = 0.01;
    n.completion_jitter_ms = 0.06;
    n.late_rate = 0.3;
    n.late_mean_ms = 0.6;
    if (name == "busy") n.issue_jitter_ms = 0.08;
    return n;
  }
  return std::nullopt;
}

std::string_view noise_preset_names() { return "none, vm, late or busy"; }

VirtualTarget::VirtualTarget(std::unique_ptr<DeviceModel> model, HostNoise noise)
    : VirtualClockTarget(0.0), model_(std::move(model)), noise_(noise), rng_(noise.seed) {
  if (!model_) throw std::invalid_argument("virtual target needs a model");
  head_ = model_->initial_state();
  if (noise_.rpm_error != 0.0 && model_->rotational()) {
    // The platter turns faster than the model says; every cost carries the spin on.
    const Millis period = model_->rotation_ms() / (1.0 + noise_.rpm_error);
    head_.spin = Spin::anchored(0.0, model_->angle_at(0.0), period);
  }
  if (const DriveParams* d = drive_params_of(*model_)) drive_.emplace(*model_, *d, head_);
  // Start the clock somewhere arbitrary so nothing depends on t = 0 being special.
  now_ = 1000.0 + std::uniform_real_distribution<double>(0.0, 100.0)(rng_);
  head_.time_ms = now_;
  if (std::getenv("DISKSCHED_VT_TRACE")) trace_ = stderr;
}

std::string VirtualTarget::describe() const {
  return fmt::format("virtual:{}", model_->name());
}

Millis VirtualTarget::jitter(Millis mean) {
  if (mean <= 0.0) return 0.0;
  return std::exponential_distribution<double>(1.0 / mean)(rng_);
}

ProbeResult VirtualTarget::serve(Op op, std::uint64_t lba, std::uint32_t count, bool fua) {
  ++probes_;
  ProbeResult r;
  r.issue_ms = now_;
  Millis to_device = noise_.issue_base_ms + jitter(noise_.issue_jitter_ms);
  Millis from_device = noise_.completion_base_ms + jitter(noise_.completion_jitter_ms);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (noise_.completion_uniform_ms > 0)
    from_device = std::max(0.0, from_device + (2.0 * u(rng_) - 1.0) * noise_.completion_uniform_ms);
  if (noise_.preemption_rate > 0 && u(rng_) < noise_.preemption_rate) {
    const Millis spike = noise_.preemption_min_ms +
                         u(rng_) * (noise_.preemption_max_ms - noise_.preemption_min_ms);
    if (u(rng_) < 0.5)
      to_device += spike;
    else
      from_device += spike;
    r.disturbed = u(rng_) < noise_.preemption_flagged;
  }
  if (noise_.late_rate > 0 && u(rng_) < noise_.late_rate)
    from_device += noise_.late_mean_ms > 0
                       ? jitter(noise_.late_mean_ms)
                       : noise_.late_min_ms + u(rng_) * (noise_.late_max_ms - noise_.late_min_ms);
  if (noise_.flag_rate > 0 && u(rng_) < noise_.flag_rate) r.disturbed = true;
  if (noise_.wander_ms > 0)
    from_device += noise_.wander_ms * (1.0 + std::sin(2.0 * std::numbers::pi * now_ / noise_.wander_period_ms));
  HeadState from = head_;
  from.time_ms = std::max(head_.time_ms, now_ + to_device);
  const std::uint32_t sb = model_->sector_bytes();
  Cost c;
  bool hit = false;
  // Writes are FUA, as the real targets write (nbd FUA, O_DSYNC), but for write_buffered.
  if (drive_) {
    const DriveResult d = drive_->serve(from.time_ms, op, lba, count, /*fua=*/op == Op::Write && fua,
                                         from.spin);
    c = d.cost;
    hit = d.hit;
    hits_ += d.hit ? 1 : 0;
  } else {
    c = model_->service(from, op, lba * sb, count * sb);
  }
  if (trace_) {
    Chs at{};
    if (const auto* d = dynamic_cast<const DiskModel*>(model_.get())) at = d->lba_to_chs(lba);
    std::fprintf(trace_,
                 "vt %s lba %llu (%lld,%d,%u) issue %.4f start %.4f from (%lld,%d) at %.4f: overhead %.4f seek %.4f "
                 "rotation %.4f transfer %.4f completion %.4f end (%lld,%d) %.4f seen %.4f%s\n",
                 op == Op::Read ? "R" : "W", static_cast<unsigned long long>(lba), static_cast<long long>(at.cylinder),
                 at.head, at.sector, r.issue_ms, from.time_ms, static_cast<long long>(head_.cylinder), head_.head,
                 head_.time_ms, c.overhead_ms, c.seek_ms, c.rotation_ms, c.transfer_ms, c.completion_ms,
                 static_cast<long long>(c.end.cylinder), c.end.head, c.end.time_ms, c.end.time_ms + from_device,
                 hit ? " hit" : "");
  }
  head_ = c.end;
  now_ = c.end.time_ms + from_device;
  r.complete_ms = now_;
  return r;
}

ProbeResult VirtualTarget::read(std::uint64_t lba, std::uint32_t count) {
  return serve(Op::Read, lba, count);
}

ProbeResult VirtualTarget::write(std::uint64_t lba, std::uint32_t count) {
  return serve(Op::Write, lba, count);
}

std::optional<ProbeResult> VirtualTarget::write_buffered(std::uint64_t lba, std::uint32_t count) {
  return serve(Op::Write, lba, count, /*fua=*/false);
}

std::optional<Millis> VirtualTarget::null_round_trip_ms() {
  // The host path alone: both latencies, no device time.
  const Millis rt = noise_.issue_base_ms + jitter(noise_.issue_jitter_ms) +
                    noise_.completion_base_ms + jitter(noise_.completion_jitter_ms);
  now_ += rt;
  return rt;
}

}  // namespace disksched::extract
