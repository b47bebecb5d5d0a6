// The sampled zones step: for a drive whose sector passes in less time than the host's
// completion jitter spans (a drive of today behind a busy host: 2.3-5.8 us a sector
// against some 0.07 ms), where the walk over cylinders (step_zones.cpp) cannot compare
// phases to half a sector. Track length measured exactly at sampled LBAs across the
// whole LBA space, zone boundaries by bisection between samples whose tracks differ,
// cylinders from the heads step's number and the sizes found.
#pragma once

#include "tools/extract/findings.hpp"
#include "tools/extract/instrument.hpp"

namespace disksched::extract {

// The plan's rule: the completion jitter spans more than kSampledZonesSectors sectors of
// zone 0 and its track boundaries show (a skew): there the sampled step runs.
constexpr double kSampledZonesSectors = 4.0;
bool zones_by_sampling(const Instrument& in, const Findings& f);

// The sampled zones step itself (any drive whose track boundaries show a skew).
void find_zones_sampled(Instrument& in, Findings& f, double share);

// The plan's zones step: the sampled one where zones_by_sampling holds, else the walk.
void find_zones_planned(Instrument& in, Findings& f, double share);

}  // namespace disksched::extract
