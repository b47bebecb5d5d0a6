#include "predictor/disk_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

namespace disksched {

void DiskModel::throw_beyond(std::uint64_t lba, std::uint64_t sectors) const {
  throw ModelError(fmt::format("{}: sectors [{}, {}) lie beyond the device ({} sectors)", name(),
                               lba, lba + sectors, lbas_));
}

DiskModel::DiskModel(DiskProfile profile) : profile_(std::move(profile)) {
  if (profile_.zones.empty()) throw ModelError(profile_.name + ": a disk needs at least one zone");
  if (!(profile_.rotation_ms > 0)) throw ModelError(profile_.name + ": rotation period must be > 0");
  spin_ = Spin::of(profile_.rotation_ms, profile_.rotation_phase);
  layout_ = DiskLayout(profile_);

  const auto heads = static_cast<std::uint64_t>(profile_.heads);
  double angle = 0.0;
  for (std::size_t i = 0; i < profile_.zones.size(); ++i) {
    const ZoneSpec& zs = profile_.zones[i];
    Zone z{zs.first_cylinder, zs.last_cylinder, zs.sectors_per_track, 0.0,
           zs.track_skew_sectors.value_or(profile_.track_skew_sectors),
           zs.cylinder_skew_sectors.value_or(profile_.cylinder_skew_sectors), 0.0, {}, {}, false};
    if (zs.first_block_sectors)  // the zone's own origin (DiskSim): skews count from here
      angle = frac_rotations(*zs.first_block_sectors / z.spt);
    else if (i > 0)
      angle = frac_rotations(angle + z.cylinder_skew / z.spt);  // crossing into this zone
    z.base_angle = angle;
    z.per_cyl = ((profile_.heads - 1) * z.track_skew + z.cylinder_skew) / z.spt;
    for (std::int32_t t = 0; t < profile_.heads; ++t)
      z.head_skew.push_back(static_cast<double>(t) * z.track_skew / z.spt);
    const Sparing sp = profile_.layout.sparing;
    if (sp == Sparing::SectorsPerCylinder || sp == Sparing::SectorsPerCylinderSlipToEnd ||
        sp == Sparing::SectorsPerTrack) {
      z.skew_slips = zs.slips;
      std::sort(z.skew_slips.begin(), z.skew_slips.end());
      z.skew_slips.erase(std::unique(z.skew_slips.begin(), z.skew_slips.end()), z.skew_slips.end());
      z.slips_per_track = sp == Sparing::SectorsPerTrack;
    }
    const auto ncyl = static_cast<std::uint64_t>(z.last_cylinder - z.first_cylinder + 1);
    // Angle of the last track of this zone, from which the next zone's first track is skewed.
    const double per_cyl = ((heads - 1) * z.track_skew + z.cylinder_skew) / z.spt;
    angle = frac_rotations(z.base_angle + static_cast<double>(ncyl - 1) * per_cyl +
                 static_cast<double>(heads - 1) * z.track_skew / z.spt);
    zones_.push_back(z);
  }
  cylinders_ = zones_.back().last_cylinder + 1;
  lbas_ = layout_.lbas();
  per_physical_ = physical_sector_bytes() / profile_.sector_bytes;
  if (std::has_single_bit(profile_.sector_bytes)) sector_shift_ = std::countr_zero(profile_.sector_bytes);
  if (profile_.capacity_sectors) {
    if (*profile_.capacity_sectors > lbas_)
      throw ModelError(fmt::format("{}: capacity_sectors {} is more than the layout's {} sectors",
                                   name(), *profile_.capacity_sectors, lbas_));
    lbas_ = *profile_.capacity_sectors;
  }
  for (const auto& t : profile_.track_phase) track_phase_[t.cylinder * profile_.heads + t.head] = frac_rotations(t.phase);
  seek_ = SeekCurve(profile_.seek, cylinders_);
}

Chs DiskModel::lba_to_chs(std::uint64_t lba) const {
  if (lba >= lbas_) throw ModelError(fmt::format("{}: LBA {} is beyond the last ({})", name(), lba, lbas_ - 1));
  return layout_.to_chs(lba);
}

std::uint64_t DiskModel::chs_to_lba(const Chs& chs) const {
  std::optional<std::uint64_t> lba;
  try {
    lba = layout_.to_lba(chs);
  } catch (const ModelError& e) {
    throw ModelError(fmt::format("{}: {}", name(), e.what()));
  }
  if (!lba)
    throw ModelError(fmt::format("{}: sector {}:{}:{} has no LBA (a slipped defect, a spare, a "
                                 "remapped defect or empty space)",
                                 name(), chs.cylinder, chs.head, chs.sector));
  if (*lba >= lbas_)
    throw ModelError(fmt::format("{}: sector {}:{}:{} holds LBA {}, beyond the capacity ({} sectors)",
                                 name(), chs.cylinder, chs.head, chs.sector, *lba, lbas_));
  return *lba;
}

std::uint32_t DiskModel::sectors_per_track(std::int64_t cylinder) const {
  return zone_of_cylinder(cylinder).spt;
}

double DiskModel::track_angle(std::int64_t c, std::int32_t h, const TrackAngles* learnt) const {
  return track_angle_in(zone_of_cylinder(c), c, h, learnt);
}

double DiskModel::sector_angle(const Chs& chs, const TrackAngles* learnt) const {
  return sector_angle_in(zone_of_cylinder(chs.cylinder), chs, learnt);
}

Millis DiskModel::sector_time_ms() const { return spin_.period_ms / zones_.front().spt; }

double DiskModel::end_angle(std::uint64_t lba, std::uint32_t sectors) const {
  return end_angle(lba, sectors, nullptr);
}

double DiskModel::end_angle(std::uint64_t lba, std::uint32_t sectors,
                            const TrackAngles& learnt) const {
  return end_angle(lba, sectors, &learnt);
}

double DiskModel::end_angle(std::uint64_t lba, std::uint32_t sectors,
                            const TrackAngles* learnt) const {
  const Chs last = lba_to_chs(lba + std::max<std::uint32_t>(sectors, 1) - 1);
  return frac_rotations(sector_angle(last, learnt) + 1.0 / zone_of_cylinder(last.cylinder).spt);
}

void DiskModel::turn_track(TrackAngles& learnt, std::int64_t c, std::int32_t h,
                           double delta_rotations) const {
  if (c < 0 || c >= cylinders_ || h < 0 || h >= profile_.heads)
    throw ModelError(fmt::format("{}: cannot adjust the phase of cylinder {} head {}: no such "
                                 "track ({} cylinders, {} heads)",
                                 name(), c, h, cylinders_, profile_.heads));
  if (!std::isfinite(delta_rotations))
    throw ModelError(fmt::format("{}: track phase adjustment must be finite, not {}", name(),
                                 delta_rotations));
  learnt[c * profile_.heads + h] = frac_rotations(track_angle(c, h, &learnt) + delta_rotations);
}

DiskProfile DiskModel::current_profile(const RotationState& state) const {
  DiskProfile p = profile_;
  if (state.spin.given()) p.rotation_ms = state.spin.period_ms;
  TrackAngles all = track_phase_;
  if (state.tracks)
    for (const auto& [key, angle] : *state.tracks) all[key] = angle;
  p.track_phase.clear();
  for (const auto& [key, angle] : all) {
    TrackPhase t;
    t.cylinder = key / profile_.heads;
    t.head = static_cast<std::int32_t>(key % profile_.heads);
    t.phase = angle;
    p.track_phase.push_back(t);
  }
  std::sort(p.track_phase.begin(), p.track_phase.end(), [](const TrackPhase& a, const TrackPhase& b) {
    return a.cylinder != b.cylinder ? a.cylinder < b.cylinder : a.head < b.head;
  });
  return p;
}

// Inlined into the two public overloads (one call the fewer per request queued).
[[gnu::always_inline]] inline Location DiskModel::locate(std::uint64_t lba, std::uint32_t sectors,
                                                         Op op, const TrackAngles* learnt) const {
  check_extent(lba, sectors);
  // A read-modify-write starts at its first physical sector's first logical one.
  const std::uint64_t start =
      read_modify_write(op, lba, lba + sectors) ? lba - lba % per_physical() : lba;
  const Chs chs = layout_.to_chs(start);
  Location l;
  l.lba = lba;
  l.sectors = sectors;
  l.cylinder = chs.cylinder;
  l.head = chs.head;
  l.angle = sector_angle_in(zone_of_cylinder(chs.cylinder), chs, learnt);
  l.overhead_ms = profile_.overhead_ms.of(op);
  l.settle_ms = settle_of(op);
  return l;
}

Location DiskModel::locate(std::uint64_t lba, std::uint32_t sectors, Op op) const {
  return locate(lba, sectors, op, nullptr);
}

Location DiskModel::locate(std::uint64_t lba, std::uint32_t sectors, Op op,
                           const TrackAngles& learnt) const {
  return locate(lba, sectors, op, &learnt);
}

Millis DiskModel::positioning_ms(const HeadState& from, const Location& to) const {
  const Millis move = move_ms(from.cylinder, from.head, to.cylinder, to.head, to.settle_ms);
  const Millis t = from.time_ms + to.overhead_ms + move;
  return to.overhead_ms + move + wait_for(spin_from(from), t, to.angle);
}

// Inlined into the two public overloads (one call the fewer per request).
[[gnu::always_inline]] inline Cost DiskModel::service(const HeadState& from, Op op,
                                                      std::uint64_t offset, std::uint32_t length,
                                                      const TrackAngles* learnt) const {
  Cost c;
  c.end = from;
  c.overhead_ms = profile_.overhead_ms.of(op);
  c.completion_ms = profile_.completion_ms.of(op);
  const bool media = op == Op::Read || op == Op::Write || op == Op::Zero || op == Op::Cache;
  const std::uint32_t sb = profile_.sector_bytes;
  if (!media || length == 0) {
    // Flush and trim: the disk has nothing to position for (write-through cache).
    c.end.time_ms = from.time_ms + c.overhead_ms + c.completion_ms;
    return c;
  }
  // Shifts where the sector size is a power of two: two divisions the fewer a request.
  const std::uint64_t last_byte = offset + length + sb - 1;
  std::uint64_t lba = sector_shift_ >= 0 ? offset >> sector_shift_ : offset / sb;
  std::uint64_t end_lba = sector_shift_ >= 0 ? last_byte >> sector_shift_ : last_byte / sb;
  check_extent(lba, end_lba - lba);
  // 512e: a write that covers physical sectors only in part reads them on one pass and
  // writes them on the next: the whole physical sectors' transfer and one revolution
  // more (exact for an extent within a track; across tracks the head and tail sectors
  // are on different tracks and a drive may pay up to one revolution more again).
  const bool rmw = read_modify_write(op, lba, end_lba);
  if (rmw) {
    lba -= lba % per_physical();
    end_lba = std::min(lbas_, (end_lba + per_physical() - 1) / per_physical() * per_physical());
  }
  // locate()'s figures, with the start's CHS kept for the transfer below (finding it
  // costs as much as the rest of the request's service).
  const Chs start = layout_.to_chs(lba);
  const Millis settle = settle_of(op);
  const Spin& spin = spin_from(from);
  const Zone* z = &zone_of_cylinder(start.cylinder);
  c.seek_ms = move_ms(from.cylinder, from.head, start.cylinder, start.head, settle);
  Millis t = from.time_ms + c.overhead_ms + c.seek_ms;
  c.rotation_ms = wait_for(spin, t, sector_angle_in(*z, start, learnt));
  t += c.rotation_ms;
  const Millis transfer_start = t;

  // Run by run: the LBAs that lie in rising sectors on one track are read in one pass
  // (slipped sectors among them pass under the head and cost their time); to the next
  // run's track it is a switch and a rotational wait. Spare space, slipped tracks and
  // remapped defects are reached by moving there, never by passing over them.
  std::uint64_t first = lba;
  const std::uint64_t last = end_lba - 1;
  Chs pos = start;
  for (;;) {
    Chs end;
    const std::uint64_t e = layout_.run_end(first, last, pos, end);
    t += static_cast<double>(end.sector - pos.sector + 1) * spin.period_ms / z->spt;
    if (e == last) break;
    first = e + 1;
    const Chs next = layout_.to_chs(first);
    z = &zone_of_cylinder(next.cylinder);
    t += move_ms(pos.cylinder, pos.head, next.cylinder, next.head, settle);
    t += wait_for(spin, t, sector_angle_in(*z, next, learnt));
    pos = next;
  }
  if (rmw) t += spin.period_ms;
  c.transfer_ms = t - transfer_start;
  c.end.cylinder = pos.cylinder;
  c.end.head = pos.head;
  c.end.time_ms = t + c.completion_ms;
  return c;
}

Cost DiskModel::service(const HeadState& from, Op op, std::uint64_t offset,
                        std::uint32_t length) const {
  return service(from, op, offset, length, nullptr);
}

Cost DiskModel::service(const HeadState& from, Op op, std::uint64_t offset, std::uint32_t length,
                        const TrackAngles& learnt) const {
  return service(from, op, offset, length, &learnt);
}

}  // namespace disksched

namespace disksched {

// service()'s positioning and run-by-run transfer, once for the whole extent, with each
// LBA's end found as service() finds the end of a request that stops there: the same
// expressions in the same order, so the same doubles.
void DiskModel::walk_ends(const HeadState& from, Op op, std::uint64_t first, std::uint64_t end,
                          std::vector<Millis>& ends, Millis& transfer_start, Millis& seek,
                          Millis& rotation) const {
  HeadState f = from;
  const Millis overhead = profile_.overhead_ms.of(op);
  f.time_ms -= overhead;
  const Chs start = layout_.to_chs(first);
  const Millis settle = settle_of(op);
  const Spin& spin = spin_from(f);
  const Zone* z = &zone_of_cylinder(start.cylinder);
  seek = move_ms(f.cylinder, f.head, start.cylinder, start.head, settle);
  Millis t = f.time_ms + overhead + seek;
  rotation = wait_for(spin, t, sector_angle_in(*z, start, nullptr));
  t += rotation;
  transfer_start = t;
  ends.resize(end - first);
  std::uint64_t lba = first;
  const std::uint64_t last = end - 1;
  Chs pos = start;
  for (;;) {
    Chs run_last;
    const std::uint64_t e = layout_.run_end(lba, last, pos, run_last);
    const bool consecutive = run_last.sector - pos.sector == e - lba;
    for (std::uint64_t x = lba; x <= e; ++x) {
      const std::uint32_t sector =
          consecutive ? pos.sector + static_cast<std::uint32_t>(x - lba) : layout_.to_chs(x).sector;
      ends[x - first] = t + static_cast<double>(sector - pos.sector + 1) * spin.period_ms / z->spt;
    }
    t = ends[e - first];
    if (e == last) break;
    lba = e + 1;
    const Chs next = layout_.to_chs(lba);
    z = &zone_of_cylinder(next.cylinder);
    t += move_ms(pos.cylinder, pos.head, next.cylinder, next.head, settle);
    t += wait_for(spin, t, sector_angle_in(*z, next, nullptr));
    pos = next;
  }
}

void DiskModel::media_ends(const HeadState& from, Op op, std::uint64_t lba, std::uint64_t count,
                           std::vector<Millis>& out) const {
  out.clear();
  if (count == 0) return;
  check_extent(lba, count);
  const Spin& spin = spin_from(from);
  std::vector<Millis> plain, rmw;
  Millis plain_start = 0, plain_seek = 0, plain_rot = 0, rmw_start = 0, rmw_seek = 0, rmw_rot = 0;
  std::uint64_t down = lba;
  out.resize(count);
  for (std::uint64_t k = 1; k <= count; ++k) {
    // A write that covers its first or last physical sector in part is a
    // read-modify-write of the whole physical sectors, a revolution longer (service()).
    if (!read_modify_write(op, lba, lba + k)) {
      if (plain.empty()) walk_ends(from, op, lba, lba + count, plain, plain_start, plain_seek, plain_rot);
      out[k - 1] = from.time_ms + plain_seek + plain_rot + (plain[k - 1] - plain_start);
      continue;
    }
    if (rmw.empty()) {
      down = lba - lba % per_physical();
      const std::uint64_t up =
          std::min(lbas_, (lba + count + per_physical() - 1) / per_physical() * per_physical());
      walk_ends(from, op, down, up, rmw, rmw_start, rmw_seek, rmw_rot);
    }
    const std::uint64_t up = std::min(lbas_, (lba + k + per_physical() - 1) / per_physical() * per_physical());
    out[k - 1] = from.time_ms + rmw_seek + rmw_rot + ((rmw[up - 1 - down] + spin.period_ms) - rmw_start);
  }
}

}  // namespace disksched
