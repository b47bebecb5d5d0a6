#include "tools/extract/compare_drive.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

namespace disksched::extract {
namespace {

bool within(double got, double truth, double rel) { return std::fabs(got - truth) <= rel * std::fabs(truth); }

// The queue depth the drive steps found, if they measured it.
std::optional<unsigned> measured_depth(const DiskProfile& got) {
  const auto d = got.source.find("drive");
  if (d == got.source.end() || !d->contains("drive_queue")) return std::nullopt;
  const auto& q = d->at("drive_queue");
  if (!q.value("measured", false) || !q.contains("depth")) return std::nullopt;
  return q.at("depth").get<unsigned>();
}

}  // namespace

bool compare_drive(const DiskProfile& got, const DiskProfile& truth, unsigned truth_queue, const Tolerances& tol,
                   std::vector<std::string>& lines) {
  bool pass = true;
  auto line = [&](const std::string& what, bool ok) {
    lines.push_back(fmt::format("{:<58} {}", what, ok ? "ok" : "FAIL"));
    pass &= ok;
  };
  const CacheParams &g = got.drive.cache, &t = truth.drive.cache;
  line(fmt::format("cache segments: {} vs {} (tol {})", g.segments, t.segments, tol.segments_off),
       static_cast<unsigned>(std::abs(static_cast<int>(g.segments) - static_cast<int>(t.segments))) <=
           tol.segments_off);
  const double ga = g.continuous_read ? g.max_read_ahead : 0, ta = t.continuous_read ? t.max_read_ahead : 0;
  line(fmt::format("read-ahead: {} vs {} sectors (tol {} %)", ga, ta, 100 * tol.read_ahead_relative),
       within(ga, ta, tol.read_ahead_relative));
  const bool gw = g.write_buffer() || g.write_behind(), tw = t.write_buffer() || t.write_behind();
  line(fmt::format("write cache: {} vs {}", gw ? "found" : "none", tw ? "yes" : "none"), gw == tw);
  if (t.write_buffer())
    line(fmt::format("write cache size: {} vs {} bytes (tol {} %)", g.write_buffer_bytes, t.write_buffer_bytes,
                     100 * tol.write_buffer_relative),
         within(static_cast<double>(g.write_buffer_bytes), static_cast<double>(t.write_buffer_bytes),
                tol.write_buffer_relative));
  if (truth_queue > 0) {
    const auto depth = measured_depth(got);
    line(fmt::format("drive queue depth: {} vs {} (tol {})", depth ? fmt::format("{}", *depth) : "not measured",
                     truth_queue, tol.queue_depth_off),
         depth && static_cast<unsigned>(std::abs(static_cast<int>(*depth) - static_cast<int>(truth_queue))) <=
                      tol.queue_depth_off);
  }
  return pass;
}

}  // namespace disksched::extract
