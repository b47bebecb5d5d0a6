#include "emulator/device/virtual_device.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <new>
#include <random>

#include <fmt/format.h>

namespace disksched {

VirtualDevice::VirtualDevice(std::unique_ptr<DeviceModel> model, DeviceOptions options)
    : VirtualDevice(*model, options) {
  owned_ = std::move(model);
}

VirtualDevice::VirtualDevice(const DeviceModel& model, DeviceOptions options)
    : model_(&model),
      capacity_bytes_(model.capacity_bytes()),
      sector_bytes_(model.sector_bytes()),
      sector_pow2_(std::has_single_bit(sector_bytes_)),
      options_(options),
      jitter_(options.jitter, options.jitter_seed),
      head_(model_->initial_state()),
      period_ms_(model_->rotation_ms()),
      phase0_(model_->angle_at(0.0)),
      controller_free_(head_.time_ms) {
  if (const DriveParams* d = drive_params_of(*model_)) drive_.emplace(*model_, *d, head_);
  if (const auto& w = options_.write_cache; w && w->bytes > 0) {
    const std::uint64_t sectors = w->bytes / model_->sector_bytes();
    if (sectors == 0)
      throw ModelError(fmt::format("write-cache={}: smaller than one sector ({} bytes)", w->bytes,
                                   model_->sector_bytes()));
    if (!(w->high_water >= 0.0 && w->high_water <= 1.0))
      throw ModelError(fmt::format("write-cache high water {}: expected a fraction from 0 to 1",
                                   w->high_water));
    wcache_.emplace(sectors, static_cast<std::uint64_t>(static_cast<double>(sectors) * w->high_water));
  } else if (const CacheParams* c = drive_ ? &drive_->params().cache : nullptr;
             !w && c != nullptr && c->write_buffer()) {
    // A drive of today's write buffer: what its size holds, destaged by positioning.
    const std::uint64_t sectors = std::max<std::uint64_t>(1, c->write_buffer_bytes / sector_bytes_);
    wcache_.emplace(sectors,
                    static_cast<std::uint64_t>(static_cast<double>(sectors) * c->write_buffer_high_water));
    destage_window_ = c->write_buffer_window;
  } else if (!w && drive_ && drive_->params().cache.write_behind()) {
    // The profile's write-behind holds what it acknowledged in its write segments.
    const CacheParams& c = drive_->params().cache;
    const std::uint64_t sectors = std::uint64_t{std::max(1u, c.write_segments)} * c.segment_sectors;
    wcache_.emplace(sectors, sectors, DestagePolicy::ProfileWriteBehind);
  }
  if (!options_.rpm_error.none() && !(model_->rotational() && period_ms_ > 0.0))
    throw ModelError(fmt::format("rpm-error={}: model '{}' does not rotate",
                                 options_.rpm_error.to_string(), model_->name()));
  platter_only_ = !drive_ && !wcache_ && options_.rpm_error.none();
}

double VirtualDevice::true_angle_at(Millis t) const {
  if (!(period_ms_ > 0.0)) return 0.0;
  if (options_.rpm_error.none()) return model_->angle_at(t);
  double a = phase0_ + options_.rpm_error.turns(t, period_ms_);
  a -= std::floor(a);
  return a >= 1.0 ? 0.0 : a;
}

HeadState VirtualDevice::from_at_true_spin(Millis t) const {
  HeadState from = head_;
  from.time_ms = std::max(t, head_.time_ms);
  const double f = options_.rpm_error.speed_factor(from.time_ms);
  if (!(f > 0.0))
    throw ModelError(fmt::format("rpm-error={}: the platter has stopped at t={} ms",
                                 options_.rpm_error.to_string(), from.time_ms));
  // The platter turns at another speed than the profile's: serve with its true spin.
  from.spin = Spin::anchored(from.time_ms, true_angle_at(from.time_ms), period_ms_ / f);
  return from;
}

void VirtualDevice::drive_media(Cost& out, const HeadState& from, Op op, std::uint64_t begin,
                                std::uint64_t len, bool fua, bool* hit, Millis* destage_end) {
  const std::uint64_t sb = sector_bytes_;
  const DriveResult r = drive_->serve(from.time_ms, op, begin / sb,
                                      static_cast<std::uint32_t>(len / sb), fua, from.spin);
  if (hit != nullptr) *hit = r.hit;
  if (destage_end != nullptr) *destage_end = r.destage_end_ms;
  out = r.cost;
}

Cost VirtualDevice::buffered(Millis start_ms, Op op, const Extent& ext, bool write) const {
  const DriveParams* dp = drive_ ? &drive_->params() : nullptr;
  const std::uint64_t sb = sector_bytes_;
  Cost c;
  c.end = head_;  // where the mechanism is; the time is the completion's
  c.overhead_ms = model_->locate(ext.lba < capacity_bytes_ / sb ? ext.lba : 0, 1, op).overhead_ms +
                  (dp ? dp->controller.command_ms(write, false, write) : 0.0);
  c.transfer_ms = static_cast<double>(ext.sectors) *
                  (dp ? (write ? dp->bus.write_sector : dp->bus.read_sector) : 0.0);
  c.completion_ms = model_->service(model_->initial_state(), op, 0, 0).completion_ms;
  c.end.time_ms = start_ms + c.service_ms();
  return c;
}

void VirtualDevice::retire(std::vector<Destage>& out, Millis t) {
  for (const WriteCache::Dirty& d : wcache_->retire(t)) out.push_back({d.extent, d.on_media_ms});
}

bool VirtualDevice::destage_one(std::vector<Destage>& out, Millis by) {
  if (!wcache_ || wcache_->empty()) return false;
  const HeadState from = from_at(destage_start());
  const auto& entries = wcache_->entries();
  std::size_t best = entries.size();
  Millis best_ms = 0.0;
  // Entries are in arrival order: a window looks at the oldest few only.
  const std::size_t look = destage_window_ > 0 ? std::min<std::size_t>(destage_window_, entries.size())
                                               : entries.size();
  for (std::size_t i = 0; i < look; ++i) {
    if (entries[i].added_ms > from.time_ms) continue;  // not in the buffer yet
    const Extent& e = entries[i].extent;
    const Millis p = model_->positioning_ms(
        from, model_->locate(e.lba, static_cast<std::uint32_t>(e.sectors), Op::Write));
    if (best == entries.size() || p < best_ms) {  // ties: the oldest (in arrival order)
      best = i;
      best_ms = p;
    }
  }
  if (best == entries.size()) return false;  // (never: the first is in at destage_start)
  const std::uint64_t sb = sector_bytes_;
  const Extent e = entries[best].extent;
  if (by >= 0.0) {
    const Cost c = model_->service(from, Op::Write, e.lba * sb, static_cast<std::uint32_t>(e.sectors * sb));
    if (c.end.time_ms - c.completion_ms > by) return false;  // the power goes first
  }
  wcache_->take(best);
  Cost c;
  media(c, from, Op::Write, e.lba * sb, e.sectors * sb, /*fua=*/true, nullptr);
  head_ = c.end;
  out.push_back({e, c.end.time_ms - c.completion_ms, from.time_ms});
  return true;
}

void VirtualDevice::destage_idle(std::vector<Destage>& out, Millis t) {
  while (wcache_ && !wcache_->empty() && destage_start() < t) destage_one(out);
}

VirtualDevice::PowerCut VirtualDevice::power_cut(Millis t, std::optional<std::uint64_t> seed) {
  PowerCut cut;
  if (!wcache_) return cut;
  if (destages_when_idle()) {
    while (!wcache_->empty() && destage_start() < t && destage_one(cut.destaged, t)) {
    }
  } else {
    retire(cut.destaged, t);
    drive_->power_cut(t);
  }
  if (seed) {
    // The drive's own order (a seeded shuffle) and how far it got in it (a seeded count):
    // mt19937_64's output is fixed by the standard, so the choice repeats anywhere.
    std::mt19937_64 rng(*seed);
    std::vector<Extent> left;
    for (const WriteCache::Dirty& d : wcache_->entries()) left.push_back(d.extent);
    for (std::size_t i = left.size(); i > 1; --i) std::swap(left[i - 1], left[rng() % i]);
    const std::size_t written = static_cast<std::size_t>(rng() % (left.size() + 1));
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (i < written)
        cut.destaged.push_back({left[i], t});
      else
        cut.lost.push_back(left[i]);
    }
    while (!wcache_->empty()) wcache_->take(0);
    return cut;
  }
  while (!wcache_->empty()) cut.lost.push_back(wcache_->take(0));
  return cut;
}

Service VirtualDevice::serve(Millis arrival_ms, Op op, std::uint64_t offset, std::uint32_t length,
                             bool fua) {
  Service s;
  serve_into(s, arrival_ms, op, offset, length, fua);
  return s;
}

void VirtualDevice::serve_general(Service& s, Millis arrival_ms, Op op, std::uint64_t offset,
                                  std::uint32_t length, bool fua) {
  const std::uint64_t cap = capacity_bytes_;
  if (offset > cap || length > cap - offset)
    throw ModelError(fmt::format("{}: bytes [{}, {}) lie beyond the device ({} bytes)",
                                 model_->name(), offset, offset + length, cap));
  const Sectors at = begin_command(s, arrival_ms, op, offset, length);
  const std::uint64_t begin = at.begin, len = at.bytes, sb = sector_bytes_;
  // In sectors: only the write cache asks (a division each, on every request else).
  const Extent ext = wcache_ ? Extent{begin / sb, len / sb} : Extent{};

  if (destages_when_idle()) {
    destage_idle(s.destaged, arrival_ms);
  } else if (wcache_) {
    retire(s.destaged, arrival_ms);
  }
  // A command starts once the one before it has completed and, if it needs the media,
  // once the mechanism is done with what it is writing back.
  s.start_ms = std::max(arrival_ms, controller_free_);
  if (destages_when_idle() && wcache_->dirty_sectors() > wcache_->high_water()) {
    // Above the high-water mark the cache drains below it before the command starts,
    // a command the buffer could take too (else the mechanism's timeline runs ahead of
    // the commands' and the device is busy more than all the time).
    while (wcache_->dirty_sectors() > wcache_->high_water()) destage_one(s.destaged);
    s.start_ms = std::max(s.start_ms, head_.time_ms);
  }
  const Millis mechanism_start = std::max(s.start_ms, head_.time_ms);

  // With a write cache configured (or the profile's write buffer), whatever goes to the
  // media goes through the drive's
  // own buffer (the profile's write-behind is this cache's job).
  const bool through = fua || options_.write_cache.has_value() || destages_when_idle();
  const bool idle_policy = destages_when_idle();
  if (idle_policy && op == Op::Write && !fua && ext.sectors > 0 && ext.sectors <= wcache_->capacity()) {
    // A full cache makes the write wait for room.
    if (!wcache_->fits(ext.sectors)) {
      while (!wcache_->fits(ext.sectors)) destage_one(s.destaged);
      s.start_ms = std::max(s.start_ms, head_.time_ms);
    }
    s.cost = buffered(s.start_ms, op, ext, true);
    wcache_->add(ext, s.cost.end.time_ms);  // in once it has crossed the bus
    s.hit = true;
    s.buffered = true;
  } else if (idle_policy && op == Op::Read && wcache_->covers(ext)) {
    s.cost = buffered(s.start_ms, op, ext, false);
    s.hit = true;
  } else if (idle_policy && op == Op::Flush) {
    // FLUSH drains the cache, then completes as a flush of the media.
    s.start_ms = mechanism_start;
    while (destage_one(s.destaged)) {
    }
    media(s.cost, from_at(head_.time_ms), op, begin, len, through, &s.hit);
    s.cost.transfer_ms += head_.time_ms - s.start_ms;
  } else {
    // Newer data (or a trim) on the media: the dirty sectors it covers are stale.
    if (wcache_ && op != Op::Read && op != Op::Cache && ext.sectors > 0) wcache_->remove(ext);
    s.start_ms = mechanism_start;
    Millis destage_end = -1.0;
    media(s.cost, from_at(s.start_ms), op, begin, len, through, &s.hit, &destage_end);
    // The profile's write-behind took it: in the buffer until its run is on the media.
    // (A zero it takes behind is bookkept as on the media at once: the data layer has
    // no buffered zeros, and a cut keeping it is a cut that came a little later.)
    if (wcache_ && op == Op::Write && destage_end >= 0.0) {
      wcache_->add(ext, s.start_ms, destage_end);
      s.buffered = true;
    }
    // A flush completes once every run is on the media: it leaves the buffer now.
    if (wcache_ && op == Op::Flush) retire(s.destaged, s.cost.end.time_ms);
  }
  const bool from_buffer = idle_policy && s.hit && (op == Op::Write || op == Op::Read);
  end_command(s, !from_buffer);
}

}  // namespace disksched
