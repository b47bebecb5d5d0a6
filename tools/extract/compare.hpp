// How far an extracted profile is from the truth (a built-in model or the profile an
// emulator played), quantity by quantity, against the extraction's tolerances:
// rotation period within 0.1 %, sectors per track and zone boundaries exact, skews
// within one sector, head switch within 0.1 ms, seek curve RMS <= 0.3 ms; and where
// spread LBAs lie (empty front, slipped sectors and tracks, spare tracks).
#pragma once

#include <string>
#include <vector>

#include "predictor/profile.hpp"

namespace disksched::extract {

struct Tolerances {
  double period_relative = 0.001;
  double skew_sectors = 1.0;
  Millis head_switch_ms = 0.1;
  Millis seek_rms_ms = 0.3;
  // Drives of today (tolerances.hpp): zones sampled, not walked. A zone's first and
  // last cylinder within this share of the drive's cylinders, and LBA -> cylinder within
  // it at the sampled LBAs (0: both exact, cylinder, head and sector).
  double zone_cylinders_relative = 0.0;
  // The drive beyond the platter (compare_drive.hpp): off for the HP 97560's set.
  bool drive = false;
  double read_ahead_relative = 0.02;    // cache.max_read_ahead
  unsigned segments_off = 0;            // cache.segments
  double write_buffer_relative = 0.10;  // cache.write_buffer_bytes
  unsigned queue_depth_off = 0;         // the drive queue's depth (source.drive)
};

struct Comparison {
  double period_error = 0.0;          // relative
  bool heads_equal = false;
  // Cylinders before LBA 0's and after the last LBA's hold no LBA and show in no timing:
  // zones are compared with cylinders counted from LBA 0's and up to the last LBA's.
  std::int64_t cylinder_shift = 0;    // the truth's cylinder of LBA 0 minus ours
  std::int64_t hidden_after = 0;      // the truth's cylinders after its last LBA's
  bool zones_equal = false;           // same cylinders and sectors per track, every zone
  int mapping_samples = 0, mapping_differ = 0;  // LBA -> (c, h, s) at spread LBAs
  std::string zones_detail;           // the first difference, if any
  // The extraction's own note on that zone's end, when it said it might be wrong there
  // ("cylinder C: ... may be off by one"): a miss it reported, not one it hid.
  std::string zones_flagged;
  double max_track_skew_error = 0.0;  // sectors, over zones
  double max_cylinder_skew_error = 0.0;
  Millis head_switch_error = 0.0;
  Millis seek_rms = 0.0;              // over every distance 1 .. cylinders-1
  Millis read_overhead_error = 0.0;   // against the truth's overhead + completion (gauge)
  int defects_missing = 0;            // slipped sectors of the truth not in ours
  int defects_extra = 0;              // ours that the truth does not have
  bool pass = false;
  std::vector<std::string> lines;     // "quantity: ours vs truth (tolerance) ok|FAIL"
};

// `true_period_ms` overrides the truth profile's period (an emulator with rpm error).
Comparison compare_profiles(const DiskProfile& got, const DiskProfile& truth,
                            Millis true_period_ms = 0.0, const Tolerances& tol = {});

}  // namespace disksched::extract
