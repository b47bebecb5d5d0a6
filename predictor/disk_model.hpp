// A zoned disk: geometry (zones, heads, skews, defects), seek curve and rotation.
//
// Angles are in rotations, [0, 1). The platter is at angle frac(t / T + phase) at time t
// (the profile's period and phase, or the spin a HeadState brings). Sector s of track
// (c, h) starts at angle frac(track_angle(c, h) + s / spt), where the track angle
// accumulates the track skew at every head switch and the cylinder skew at every
// cylinder switch from (0, 0), unless a measured per-track phase overrides it (the
// profile's track_phase, or learnt TrackAngles passed in).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/disk_layout.hpp"
#include "predictor/profile.hpp"
#include "predictor/seek_curve.hpp"

namespace disksched {

class DiskModel final : public DeviceModel {
 public:
  explicit DiskModel(DiskProfile profile);

  std::string_view kind() const override { return "disk"; }
  std::string name() const override { return profile_.name; }
  std::uint64_t capacity_bytes() const override { return lbas_ * profile_.sector_bytes; }
  std::uint32_t sector_bytes() const override { return profile_.sector_bytes; }
  std::uint32_t physical_sector_bytes() const override {
    return profile_.physical_sector_bytes == 0 ? profile_.sector_bytes : profile_.physical_sector_bytes;
  }
  std::int64_t cylinders() const override { return cylinders_; }
  bool rotational() const override { return true; }
  Location locate(std::uint64_t lba, std::uint32_t sectors, Op op) const override;
  Location locate(std::uint64_t lba, std::uint32_t sectors, Op op,
                  const TrackAngles& learnt) const override;
  Millis positioning_ms(const HeadState& from, const Location& to) const override;
  Millis seek_ms(std::int64_t distance) const override { return seek_(distance); }
  Cost service(const HeadState& from, Op op, std::uint64_t offset,
               std::uint32_t length) const override;
  Cost service(const HeadState& from, Op op, std::uint64_t offset, std::uint32_t length,
               const TrackAngles& learnt) const override;
  void media_ends(const HeadState& from, Op op, std::uint64_t lba, std::uint64_t count,
                  std::vector<Millis>& out) const override;
  Millis rotation_ms() const override { return spin_.period_ms; }
  Millis sector_time_ms() const override;
  Spin spin() const override { return spin_; }
  double end_angle(std::uint64_t lba, std::uint32_t sectors) const override;
  double end_angle(std::uint64_t lba, std::uint32_t sectors,
                   const TrackAngles& learnt) const override;
  // Throws ModelError for a track the disk does not have or a delta that is not finite.
  void turn_track(TrackAngles& learnt, std::int64_t cylinder, std::int32_t head,
                  double delta_rotations) const override;

  const DiskProfile& profile() const { return profile_; }
  std::uint64_t lbas() const { return lbas_; }
  std::int32_t heads() const { return profile_.heads; }
  double phase() const { return spin_.phase; }
  // Tracks whose angle the profile measured (its track_phase).
  std::size_t track_phase_overrides() const { return track_phase_.size(); }
  // The profile as it stands after a run that learnt `state`: its spin's period (when
  // given) and every track's measured or learnt angle in track_phase. Saved, it starts
  // the next run where this one left off.
  DiskProfile current_profile(const RotationState& state) const;

  // Geometry, exposed for tests and tools.
  Chs lba_to_chs(std::uint64_t lba) const;
  // Throws for a sector that holds no LBA (slipped, spare, remapped defect, empty front).
  std::uint64_t chs_to_lba(const Chs& chs) const;
  std::uint32_t sectors_per_track(std::int64_t cylinder) const;
  double track_angle(std::int64_t cylinder, std::int32_t head,
                     const TrackAngles* learnt = nullptr) const;
  double sector_angle(const Chs& chs, const TrackAngles* learnt = nullptr) const;
  // Cost of switching from track (c0, h0) to (c1, h1): seek, head switch or both, plus
  // `settle` when there is a move at all (a write's extra settle, possibly < 0).
  // Inline: every request's service and every positioning estimate moves.
  Millis move_ms(std::int64_t c0, std::int32_t h0, std::int64_t c1, std::int32_t h1,
                 Millis settle = 0.0) const {
    Millis m = 0.0;
    if (c0 != c1) {
      const Millis s = seek_(c1 - c0);
      m = h0 != h1 ? std::max(s, profile_.head_switch_ms) : s;
    } else if (h0 != h1) {
      m = profile_.head_switch_ms;
    }
    // DiskSim adds the write settle to any move that takes time; a negative one cannot
    // make a move cost less than nothing.
    return m > 0.0 && settle != 0.0 ? std::max(m + settle, 0.0) : m;
  }
  const DiskLayout& layout() const { return layout_; }

 private:
  struct Zone {
    std::int64_t first_cylinder, last_cylinder;
    std::uint32_t spt;
    double base_angle;         // angle of sector 0 of the zone's first track
    double track_skew, cylinder_skew;  // sectors
    // track_angle's terms, found once (the same expressions, so the same doubles):
    // rotations per cylinder, and the skew of each track index on a cylinder.
    double per_cyl = 0.0;
    std::vector<double> head_skew;
    // Slips that push the skew on (DiskSim's g1 layout, sparing schemes 2-4): each slip
    // before a track's cylinder (scheme 3: before the track) turns it one sector further.
    std::vector<std::uint64_t> skew_slips;  // sorted zone positions (sectors)
    bool slips_per_track = false;           // scheme 3: counted up to the track, not the cylinder
  };
  // The sectors the zone's slips before track (c, h) add to its skew.
  double slip_skew(const Zone& z, std::int64_t c, std::int32_t h) const {
    std::uint64_t tracks = static_cast<std::uint64_t>(c - z.first_cylinder) *
                           static_cast<std::uint64_t>(profile_.heads);
    if (z.slips_per_track) tracks += static_cast<std::uint64_t>(h);  // the head, as DiskSim has it
    const std::uint64_t cutoff = tracks * z.spt;
    return static_cast<double>(std::lower_bound(z.skew_slips.begin(), z.skew_slips.end(), cutoff) -
                               z.skew_slips.begin());
  }
  const Zone& zone_of_cylinder(std::int64_t c) const { return zones_[layout_.zone_of_cylinder(c)]; }
  // track_angle and sector_angle for a caller that has the track's zone (inline: the
  // hot path, where both maps are usually empty).
  [[gnu::always_inline]] double track_angle_in(const Zone& z, std::int64_t c, std::int32_t h,
                                               const TrackAngles* learnt) const {
    if (learnt != nullptr && !learnt->empty()) [[unlikely]] {
      auto it = learnt->find(c * profile_.heads + h);
      if (it != learnt->end()) return it->second;
    }
    if (!track_phase_.empty()) [[unlikely]] {
      auto it = track_phase_.find(c * profile_.heads + h);
      if (it != track_phase_.end()) return it->second;
    }
    const double a = z.base_angle + static_cast<double>(c - z.first_cylinder) * z.per_cyl +
                     z.head_skew[static_cast<std::size_t>(layout_.track_index(c, h))];
    if (!z.skew_slips.empty()) [[unlikely]]
      return frac_rotations(a + slip_skew(z, c, h) / z.spt);
    return frac_rotations(a);
  }
  double sector_angle_in(const Zone& z, const Chs& chs, const TrackAngles* learnt) const {
    return frac_rotations(track_angle_in(z, chs.cylinder, chs.head, learnt) +
                          static_cast<double>(chs.sector) / z.spt);
  }
  // Throws ModelError unless [lba, lba + sectors) lies on the device.
  void check_extent(std::uint64_t lba, std::uint64_t sectors) const {
    if (lba >= lbas_ || sectors > lbas_ - lba) [[unlikely]]
      throw_beyond(lba, sectors);
  }
  [[noreturn]] void throw_beyond(std::uint64_t lba, std::uint64_t sectors) const;
  // media_ends' walk: for each LBA of [first, end), when its sector passes under the head
  // on a transfer of [first, x] from `from` (overhead paid), into ends[x - first]; the
  // positioning's seek and rotational wait into seek and rotation.
  void walk_ends(const HeadState& from, Op op, std::uint64_t first, std::uint64_t end,
                 std::vector<Millis>& ends, Millis& transfer_start, Millis& seek,
                 Millis& rotation) const;
  Millis settle_of(Op op) const {
    return op == Op::Write || op == Op::Zero ? profile_.write_settle_ms : 0.0;
  }
  const Spin& spin_from(const HeadState& s) const { return s.spin.given() ? s.spin : spin_; }
  // Time from `t` until the platter, turning as `spin`, brings `angle` under the heads.
  static Millis wait_for(const Spin& spin, Millis t, double angle) {
    double d = frac_rotations(angle - spin.angle_at(t));
    if (d > 1.0 - kAngleEpsilon) d = 0.0;
    return d * spin.period_ms;
  }
  // A wait within this much of a full rotation is rounding noise on "no wait at all".
  static constexpr double kAngleEpsilon = 1e-9;
  Location locate(std::uint64_t lba, std::uint32_t sectors, Op op,
                  const TrackAngles* learnt) const;
  Cost service(const HeadState& from, Op op, std::uint64_t offset, std::uint32_t length,
               const TrackAngles* learnt) const;
  double end_angle(std::uint64_t lba, std::uint32_t sectors, const TrackAngles* learnt) const;
  // Logical sectors per physical one (8 on 512e, else 1).
  std::uint64_t per_physical() const { return per_physical_; }
  // A write of [lba, end) that leaves a physical sector partly written (512e).
  bool read_modify_write(Op op, std::uint64_t lba, std::uint64_t end) const {
    const std::uint64_t k = per_physical();
    return k > 1 && op == Op::Write && (lba % k != 0 || (end % k != 0 && end != lbas_));
  }

  DiskProfile profile_;
  SeekCurve seek_;
  DiskLayout layout_;
  std::vector<Zone> zones_;
  std::int64_t cylinders_ = 0;
  std::uint64_t lbas_ = 0;
  std::uint64_t per_physical_ = 1;
  int sector_shift_ = -1;    // log2 of the sector size when it is a power of two (all of today's)
  TrackAngles track_phase_;  // the profile's measured ones: c * heads + h -> angle
  Spin spin_;                // the profile's
};

}  // namespace disksched
