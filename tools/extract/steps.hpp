// The extraction's measurement steps, one file each. Each measures one thing with the
// instrument, from what the steps before it found (Findings), within its share of the
// budget (a fraction of it; the steps without a share say what they take), and adds
// what it found. The plan (extractor.cpp) says which run and in what order.
#pragma once

#include "tools/extract/findings.hpp"
#include "tools/extract/instrument.hpp"

namespace disksched::extract {

using Step = void (*)(Instrument& in, Findings& f, double share);

// step_period.cpp: how to wait for completions, the host's null round trip, and the
// rotation period from back-to-back reads of the reference sector.
void measure_period(Instrument& in, Findings& f, double share);
// step_tracks.cpp: sectors per track and track boundaries near LBA 0, and the dead time.
void first_tracks(Instrument& in, Findings& f, double share);
// step_heads.cpp: the number of heads from consecutive track boundaries (track skew vs
// cylinder skew, or, when the skews are equal, switch times), and an empty front.
void find_heads(Instrument& in, Findings& f, double share);
// step_zones.cpp: zones, spare tracks and slipped sectors (ZoneSearch).
void find_zones(Instrument& in, Findings& f, double share);
// step_skews.cpp: track and cylinder skew per zone (circular medians).
void measure_skews(Instrument& in, Findings& f, double share);
// step_switches.cpp: dead time and head-switch time from reach thresholds.
void measure_switches(Instrument& in, Findings& f, double share);
// step_seeks.cpp: reach thresholds between cylinders d apart, robust fit + table; all
// the budget left but the validation's reserve.
void measure_seeks(Instrument& in, Findings& f, double share);
// step_writes.cpp: (only with --allow-writes) write-behind, write completion offset and
// overhead.
void measure_writes(Instrument& in, Findings& f, double share);
// step_validate.cpp: predicted vs measured completion times of random request pairs,
// in what is left of the budget.
void validate(Instrument& in, Findings& f, double share);

// profile_build.cpp: the profile from the findings (no step of its own: a few reads of
// zone starts after spare tracks), and its `source` record.
void build_profile(Instrument& in, Findings& f);
void record_source(Instrument& in, Findings& f);

// result_checks.cpp: the result's own sanity checks (heads assumed, zones not all
// measured, a negative seek time, a profile the loader refuses), into result.failures.
void check_result(Instrument& in, Findings& f);

}  // namespace disksched::extract
