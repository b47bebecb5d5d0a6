// What the extraction steps have found so far: each step reads what earlier steps put
// here and adds its own. The result that goes out (profile, layout, period, dead time,
// seek points, validation, notes) and what the steps pass on to each other.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tools/extract/drive_findings.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/geometry_probe.hpp"

namespace disksched::extract {

struct Findings {
  ExtractResult result;
  // tracks: zone 0's track size near LBA 0, whether its track boundaries show (a skew),
  // and the scan that found them.
  double step0 = 0;  // rotations per sector in zone 0
  std::uint32_t spt0 = 0;
  bool boundaries_visible = true;
  TrackScan scan0;
  // heads, zones: track-start PBAs whose LBA is confirmed.
  std::set<std::uint64_t> verified{0};
  // zones: spare cylinders before the zone last found (a first guess for the next
  // crossing), and seeks inside zones, outwards onto a zone's last cylinder (every
  // sample: the spare-cylinder counts fit a curve through them).
  std::int64_t last_spare_cylinders = 0;
  std::vector<SeekPoint> inside_seeks;
  // zones: the first LBA it did not search (the device's size when it searched all);
  // cylinders from measured_end on were not measured (the steps after it sample below).
  std::uint64_t zones_unsearched = 0;
  std::int64_t measured_end = std::numeric_limits<std::int64_t>::max();
  // zones: crossings counted as skipping spare cylinders where one cylinder more changes
  // a seek by less than the threshold can tell (a failure of the result, with why).
  std::vector<std::string> crossings_unresolved;
  // switch: the head-switch time (and its running guess); writes: overhead and
  // completion offset (-1: not measured).
  Millis head_switch = 0, head_switch_guess = 0;
  Millis write_overhead = -1, write_completion = 0;
  // read cache, write cache, queue (drive_steps.hpp): the buffer and the drive's queue.
  DriveFindings drive;
  // heads: why the number of heads is assumed, not measured (empty: measured, or given).
  std::string heads_assumed;
  std::string heads_how = "measured";  // measured, given or assumed, and why (source.parameters)
  std::string zones_how;  // the sampled zones step: how (source.parameters; empty: the walk's)
  bool skews_sampled = false;  // the sampled zones step measured every zone's skews (the skews step skips)

  // Cylinders of zone z that the steps after the zones step may sample.
  std::int64_t sampled_cylinders(const ZoneLayout& z) const {
    return std::max<std::int64_t>(0, std::min(z.cylinders, measured_end - z.first_cylinder));
  }
};

}  // namespace disksched::extract
