// A zoned disk: geometry (zones, heads, skews, defects), seek curve and rotation.
//
// Angles are in rotations, [0, 1). The platter is at angle frac(t / T + phase) at time t.
// Sector s of track (c, h) starts at angle frac(track_angle(c, h) + s / spt), where the
// track angle accumulates the track skew at every head switch and the cylinder skew at
// every cylinder switch from (0, 0), unless a measured per-track phase overrides it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/profile.hpp"
#include "predictor/seek_curve.hpp"

namespace disksched {

struct Chs {
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  std::uint32_t sector = 0;
  bool operator==(const Chs&) const = default;
};

class DiskModel final : public DeviceModel {
 public:
  explicit DiskModel(DiskProfile profile);

  std::string_view kind() const override { return "disk"; }
  std::string name() const override { return profile_.name; }
  std::uint64_t capacity_bytes() const override { return lbas_ * profile_.sector_bytes; }
  std::uint32_t sector_bytes() const override { return profile_.sector_bytes; }
  std::int64_t cylinders() const override { return cylinders_; }
  bool rotational() const override { return true; }
  Location locate(std::uint64_t lba, std::uint32_t sectors, Op op) const override;
  Millis positioning_ms(const HeadState& from, const Location& to) const override;
  Millis seek_ms(std::int64_t distance) const override { return seek_(distance); }
  Cost service(const HeadState& from, Op op, std::uint64_t offset,
               std::uint32_t length) const override;
  Millis rotation_ms() const override { return rotation_ms_; }
  Millis sector_time_ms() const override;
  double angle_at(Millis t) const override;
  void anchor_rotation(Millis t, double angle, Millis period_ms) override;
  double end_angle(std::uint64_t lba, std::uint32_t sectors) const override;
  // Throws ModelError for a track the disk does not have.
  void adjust_track_phase(std::int64_t cylinder, std::int32_t head,
                          double delta_rotations) override;

  const DiskProfile& profile() const { return profile_; }
  std::uint64_t lbas() const { return lbas_; }
  std::int32_t heads() const { return profile_.heads; }
  double phase() const { return phase_; }
  // Tracks whose angle is measured (the profile's track_phase) or was adjusted since.
  // profile() stays the profile as loaded.
  std::size_t track_phase_overrides() const { return track_phase_.size(); }
  // Takes `other`'s per-track angles (a second instance of the same geometry, e.g. a
  // scratch model that replays what the live one predicted). Throws ModelError when the
  // geometries differ.
  void copy_track_phases(const DiskModel& other);
  // The profile as the model now stands: the rotation period in use (refined by
  // anchor_rotation) and every track's measured or adjusted angle in track_phase.
  // Saved, it starts the next run where this one left off.
  DiskProfile current_profile() const;

  // Geometry, exposed for tests and tools.
  Chs lba_to_chs(std::uint64_t lba) const;
  std::uint64_t chs_to_lba(const Chs& chs) const;  // throws for a defective sector
  std::uint32_t sectors_per_track(std::int64_t cylinder) const;
  double track_angle(std::int64_t cylinder, std::int32_t head) const;
  double sector_angle(const Chs& chs) const;
  // Cost of switching from track (c0, h0) to (c1, h1): seek, head switch or both.
  Millis move_ms(std::int64_t c0, std::int32_t h0, std::int64_t c1, std::int32_t h1) const;

 private:
  struct Zone {
    std::int64_t first_cylinder, last_cylinder;
    std::uint32_t spt;
    std::uint64_t first_pba;   // physical sector index of (first_cylinder, 0, 0)
    double base_angle;         // angle of sector 0 of (first_cylinder, 0) from skews
    double track_skew, cylinder_skew;  // sectors
  };
  const Zone& zone_of_pba(std::uint64_t pba) const;
  const Zone& zone_of_cylinder(std::int64_t c) const;
  std::uint64_t lba_to_pba(std::uint64_t lba) const;
  Chs pba_to_chs(std::uint64_t pba) const;
  std::uint64_t chs_to_pba(const Chs& chs) const;
  // Time from `t` until the platter brings `angle` under the heads.
  Millis wait_for(Millis t, double angle) const;

  DiskProfile profile_;
  SeekCurve seek_;
  std::vector<Zone> zones_;
  std::int64_t cylinders_ = 0;
  std::uint64_t pbas_ = 0, lbas_ = 0;
  std::vector<std::uint64_t> defects_;  // sorted physical sector indices
  std::unordered_map<std::int64_t, double> track_phase_;  // c * heads + h -> angle
  Millis rotation_ms_ = 0;
  double inv_rotation_ = 0;
  double phase_ = 0;
};

}  // namespace disksched
