#include "emulator/device/virtual_device.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace disksched {

VirtualDevice::VirtualDevice(std::unique_ptr<DeviceModel> model, DeviceOptions options)
    : VirtualDevice(*model, options) {
  owned_ = std::move(model);
}

VirtualDevice::VirtualDevice(const DeviceModel& model, DeviceOptions options)
    : model_(&model),
      options_(options),
      jitter_(options.jitter, options.jitter_seed),
      head_(model_->initial_state()),
      period_ms_(model_->rotation_ms()),
      phase0_(model_->angle_at(0.0)) {
  if (const DriveParams* d = drive_params_of(*model_)) drive_.emplace(*model_, *d, head_);
  if (!options_.rpm_error.none() && !(model_->rotational() && period_ms_ > 0.0))
    throw ModelError(fmt::format("rpm-error={}: model '{}' does not rotate",
                                 options_.rpm_error.to_string(), model_->name()));
}

double VirtualDevice::true_angle_at(Millis t) const {
  if (!(period_ms_ > 0.0)) return 0.0;
  if (options_.rpm_error.none()) return model_->angle_at(t);
  double a = phase0_ + options_.rpm_error.turns(t, period_ms_);
  a -= std::floor(a);
  return a >= 1.0 ? 0.0 : a;
}

Service VirtualDevice::serve(Millis arrival_ms, Op op, std::uint64_t offset, std::uint32_t length,
                             bool fua) {
  const std::uint64_t cap = model_->capacity_bytes();
  if (offset > cap || length > cap - offset)
    throw ModelError(fmt::format("{}: bytes [{}, {}) lie beyond the device ({} bytes)",
                                 model_->name(), offset, offset + length, cap));
  Service s;
  s.seq = seq_;
  s.op = op;
  s.arrival_ms = arrival_ms;
  s.start_ms = std::max(arrival_ms, head_.time_ms);

  // Whole sectors: a partial sector costs as much as a full one on the media.
  std::uint64_t begin = offset, len = length;
  if (length > 0) {
    const std::uint64_t sb = model_->sector_bytes();
    begin = offset / sb * sb;
    len = (offset + length + sb - 1) / sb * sb - begin;
  }

  HeadState from = head_;
  from.time_ms = s.start_ms;
  if (!options_.rpm_error.none()) {
    const double f = options_.rpm_error.speed_factor(s.start_ms);
    if (!(f > 0.0))
      throw ModelError(fmt::format("rpm-error={}: the platter has stopped at t={} ms",
                                   options_.rpm_error.to_string(), s.start_ms));
    // The platter turns at another speed than the profile's: serve with its true spin.
    from.spin = Spin::anchored(s.start_ms, true_angle_at(s.start_ms), period_ms_ / f);
  }
  if (drive_) {
    const std::uint64_t sb = model_->sector_bytes();
    const DriveResult r = drive_->serve(s.start_ms, op, begin / sb,
                                        static_cast<std::uint32_t>(len / sb), fua, from.spin);
    s.cost = r.cost;
    s.hit = r.hit;
  } else {
    s.cost = model_->service(from, op, begin, static_cast<std::uint32_t>(len));
  }
  s.jitter_ms = jitter_.sample();
  s.completion_ms = s.cost.end.time_ms + s.jitter_ms;

  head_ = s.cost.end;
  head_.time_ms = s.completion_ms;
  ++seq_;
  return s;
}

}  // namespace disksched
