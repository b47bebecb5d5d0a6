// Sectors per track, track boundaries and skews from completion phases (reference
// notes §4.3.3-4.3.4). Within a track, consecutive sectors' completion phases differ
// by one sector (1/spt of a rotation); across a track boundary they differ by one
// sector plus the skew. A stride scan finds the intervals that contain a boundary,
// bisection pins each boundary to the LBA, and the distance between two boundaries
// is the track size, exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/extract/prober.hpp"

namespace disksched::extract {

struct TrackScan {
  std::uint32_t spt = 0;
  double step = 0.0;    // rotations per sector, measured
  bool exact = false;   // spt from two track boundaries, not from the phase step
  std::vector<std::uint64_t> boundaries;  // first LBAs of the tracks found, ascending
  std::vector<double> skews;              // skew in sectors at each boundary
};

// Scans forward from `start` until `min_boundaries` track boundaries are found (or
// about min_boundaries + 1 tracks are covered). `step_hint` (rotations per sector)
// = 0 when unknown.
TrackScan scan_tracks(Prober& p, std::uint64_t start, double step_hint, int min_boundaries = 2);

// Phase step (rotations per sector) by widening strides until the noise is small
// relative to the step: the first guess at the track size.
double rough_step(Prober& p, std::uint64_t start);

// Phases of `lbas` (each with the prober's repeats), read in the order the target
// prefers (ProbeTarget::prefers_descending_reads), returned in the order asked.
std::vector<double> phases_of(Prober& p, const std::vector<std::uint64_t>& lbas);

// Chooses how many reads each phase measurement takes so that its standard error is
// about a tenth of a sector.
int repeats_for(const Prober& p, double step);

struct Boundary {
  std::uint64_t lba = 0;   // first LBA of the track
  double skew = 0.0;       // sectors
  bool visible = false;    // the skew stood out of the noise
};

// Walks `count` consecutive track boundaries after the track that starts at `first`,
// predicting each at +spt and verifying it with a pair of phase reads; falls back to
// a scan when a track turns out shorter (a slipped defect) or longer.
std::vector<Boundary> walk_boundaries(Prober& p, std::uint64_t first, std::uint32_t spt,
                                      double step, int count);

// Skew (sectors) at the boundary whose first LBA is `lba`, as the circular median of
// `samples` pair reads. `gap` = slipped sectors between lba - 1 and lba (at the end of
// one track or the start of the next), which pass under the head without an LBA.
double measure_skew(Prober& p, std::uint64_t lba, double step, int samples = 1, int gap = 0);

// Splits per-boundary values (skews in sectors, or track-switch times) into a
// track-switch class and a cylinder-switch class: value k-1 belongs to the boundary
// that starts track k (counted from LBA 0's track), and cylinder switches repeat with
// the number of heads, at the multiples of it when LBA 0 is on head 0, else offset by
// LBA 0's head (an empty front). Classes must be at least `min_gap` apart. heads == 0
// when the values do not tell.
struct BoundaryClasses {
  std::int32_t heads = 0;
  std::int32_t first_head = 0;  // the head of LBA 0's track
  double track_value = 0.0, cylinder_value = 0.0;
  std::string why;  // when heads == 0
};
BoundaryClasses classify_boundaries(const std::vector<double>& values, double min_gap);

}  // namespace disksched::extract
