#include "predictor/access_map.hpp"

#include <cmath>

namespace disksched {

AccessMap compute_access_map(const DiskModel& m, std::int64_t cylinder, std::int32_t head,
                             std::uint32_t sector) {
  AccessMap map;
  map.from_cylinder = cylinder;
  map.from_head = head;
  map.from_sector = sector;
  map.cylinders = m.cylinders();
  map.sectors = m.sectors_per_track(cylinder);
  map.rotation_ms = m.rotation_ms();
  map.access_ms.resize(static_cast<std::size_t>(map.cylinders) * map.sectors);
  // The head is over the start of `sector` at time t0.
  const Millis t0 = [&] {
    double a = m.sector_angle({cylinder, head, sector}) - m.angle_at(0.0);
    a -= std::floor(a);
    return a * m.rotation_ms();
  }();
  const HeadState h{t0, cylinder, head, 0.0, 1, {}};
  for (std::int64_t c = 0; c < map.cylinders; ++c) {
    const std::uint32_t spt = m.sectors_per_track(c);
    // The sector of cylinder c under the head at t0, then the offsets from it.
    const double a0 = m.angle_at(t0) - m.track_angle(c, head);
    const double base = (a0 - std::floor(a0)) * spt;
    for (std::uint32_t s = 0; s < map.sectors; ++s) {
      const auto target = static_cast<std::uint32_t>(
          std::llround(base + static_cast<double>(s) * spt / map.sectors) % spt);
      Location to;
      to.cylinder = c;
      to.head = head;
      to.angle = m.sector_angle({c, head, target});
      map.access_ms[c * map.sectors + s] = m.positioning_ms(h, to);
    }
  }
  return map;
}

std::vector<double> reachable_within_rotations(const AccessMap& map, int max_k) {
  std::vector<double> out(static_cast<std::size_t>(max_k), 0.0);
  const double eps = 1e-9;
  for (Millis t : map.access_ms)
    for (int k = 1; k <= max_k; ++k)
      if (t <= k * map.rotation_ms + eps) out[k - 1] += 1.0;
  for (double& f : out) f /= static_cast<double>(map.access_ms.size());
  return out;
}

std::vector<ReachDefinition> one_rotation_reach(const DiskModel& m) {
  const Millis T = m.rotation_ms();
  const std::int64_t C = m.cylinders();
  auto from = [&](std::int64_t c, double limit_rotations) {
    auto map = compute_access_map(m, c, 0, 0);
    std::size_t n = 0;
    for (Millis t : map.access_ms) n += t <= limit_rotations * T + 1e-9 ? 1 : 0;
    return static_cast<double>(n) / static_cast<double>(map.access_ms.size());
  };
  auto seek_reach = [&](std::int64_t c0) {
    std::int64_t n = 0;
    for (std::int64_t c = 0; c < C; ++c) n += m.seek_ms(c - c0) <= T ? 1 : 0;
    return static_cast<double>(n) / static_cast<double>(C);
  };
  // Averages over every start cylinder (sampled every 8 cylinders).
  double avg_one = 0, avg_seek = 0;
  int samples = 0;
  for (std::int64_t c = 0; c < C; c += 8, ++samples) {
    avg_seek += seek_reach(c);
  }
  avg_seek /= samples;
  samples = 0;
  for (std::int64_t c = 0; c < C; c += 64, ++samples) avg_one += from(c, 1.0);
  avg_one /= samples;
  const std::int64_t mid = C / 2;
  return {
      {"ta<=1rot@cyl0", "T_A <= one rotation, from sector 0 of cylinder 0", from(0, 1.0)},
      {"ta<=1rot@mid", "T_A <= one rotation, from sector 0 of the middle cylinder", from(mid, 1.0)},
      {"ta<=1rot@avg", "T_A <= one rotation, averaged over start cylinders", avg_one},
      {"ta<=1.5rot@mid", "T_A <= one and a half rotations (mean latency beyond the first), middle",
       from(mid, 1.5)},
      {"ta<=2rot@cyl0", "T_A <= two rotations, from cylinder 0", from(0, 2.0)},
      {"ta<=2rot@mid", "T_A <= two rotations, from the middle cylinder", from(mid, 2.0)},
      {"seek<=1rot@cyl0", "cylinders whose seek fits in one rotation, from cylinder 0",
       seek_reach(0)},
      {"seek<=1rot@mid", "cylinders whose seek fits in one rotation, from the middle",
       seek_reach(mid)},
      {"seek<=1rot@avg", "cylinders whose seek fits in one rotation, averaged", avg_seek},
  };
}

}  // namespace disksched
