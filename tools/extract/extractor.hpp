// `disksched extract`: from a device (or its emulation) to a geometry profile.
//
// Steps, each from the reference notes (§4.3) and measured at queue depth 1 with
// single-sector reads unless writes are allowed in a range:
//   period    back-to-back reads of a reference sector; the period is refitted on a
//             growing baseline as the reference is re-read through the run
//   tracks    sectors per track and track boundaries near LBA 0 (completion phases)
//   heads     consecutive track boundaries: track skew vs cylinder skew (or, when the
//             skews are equal, track-switch times) give the number of heads
//   zones     galloping + bisection on cylinders for where the track size changes
//   skews     track and cylinder skew per zone (circular medians)
//   switch    dead time (overheads) and head-switch time from reach thresholds
//   seek      reach thresholds between cylinders d apart, robust fit + table
//   writes    (only in --allow-writes) write completion offset and overhead
//   validate  predicted vs measured completion times of random request pairs
// The budget is honoured by sampling: fewer seek distances and validation pairs when
// it is short. Each step is its own file (steps.hpp), run by the plan in extractor.cpp
// with the instrument (instrument.hpp) and what the steps before it found (findings.hpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "predictor/profile.hpp"
#include "tools/extract/cache_check.hpp"
#include "tools/extract/layout.hpp"
#include "tools/extract/prober.hpp"
#include "tools/extract/seek_fit.hpp"

namespace disksched::extract {

// What interrogation (SCSI / ATA) said, used to seed and cross-check the timing.
struct Seeds {
  std::optional<int> nominal_rpm;
  std::optional<int> heads;              // MODE SENSE page 04h (often fake)
  std::optional<int> sectors_per_track;  // page 03h (an average on many drives)
  std::optional<int> track_skew, cylinder_skew;
  // READ DEFECT DATA's primary list (cylinder, head, sector), to compare with the
  // slipped sectors the timing finds.
  std::optional<std::vector<std::tuple<std::int64_t, std::int32_t, std::uint32_t>>> defect_list;
  // LBA -> (cylinder, head) by Translate Address, when the device does it.
  std::function<std::optional<std::pair<std::int64_t, std::int32_t>>(std::uint64_t)> translate;
};

struct ExtractOptions {
  Millis budget_ms = 300'000.0;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> writable;  // [first, last] sector
  std::string name = "extracted";
  SeekForm seek_form = SeekForm::Auto;
  std::uint64_t seed = 1;
  std::FILE* progress = nullptr;  // progress bar and notes; nullptr = quiet
  std::uint64_t reference_lba = 0;
  Millis resolution_ms = 0.01;    // of reach thresholds
  int max_validation_pairs = 400;
  Seeds seeds;
  // The number of heads the user gave (--heads), taken where the timing tells none.
  std::optional<int> heads;
  // Find the drive's buffer first and, where it answers reads, probe around it
  // (cache_defeat.hpp). Off: the probes go straight to the target, as before.
  bool defeat_cache = true;
  // Time the drive's read cache, write cache and queue (drive_steps.hpp). Off: those
  // steps probe nothing (the geometry's probes alone, as before they were added).
  bool drive_steps = true;
  // What fixes a host too noisy to time (the flag or setting), appended to the errors
  // that timing noise causes; empty = nothing to suggest.
  std::string timing_advice;
};

struct Validation {
  int pairs = 0;
  double tolerance_ms = 0.0;        // max(2 sector times, 2 % of a rotation)
  double within_tolerance = 0.0;    // fraction of pairs predicted within it
  double median_abs_error_ms = 0.0;
  double p95_abs_error_ms = 0.0;
};

struct ExtractResult {
  DiskProfile profile;
  Layout layout;
  PeriodEstimate period;
  Millis host_floor_ms = 0.0;   // null round trip (0 when not measurable)
  Millis dead_time_ms = 0.0;    // read: host + drive overheads before the media
  std::vector<SeekPoint> seek_points;
  SeekFit seek;
  Validation validation;
  CacheFindings cache;              // what the drive's buffer did to the first probes
  std::uint64_t cache_evictions = 0;  // reads added so that probes missed the buffer
  std::vector<std::string> notes;  // warnings and cross-checks, also in profile.source
  // The result's own checks that failed, each with what would fix it (result_checks.cpp):
  // a profile is written then only when asked for a partial one.
  std::vector<std::string> failures;
  Millis elapsed_ms = 0.0;
  std::uint64_t probes = 0;
};

ExtractResult extract_geometry(ProbeTarget& target, const ExtractOptions& options);

}  // namespace disksched::extract
