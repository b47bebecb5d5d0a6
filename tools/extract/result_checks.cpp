// The result's own sanity checks (steps.hpp): what the steps could not measure, or
// measured into something no drive has, is a failure with the flag that would fix it.
// The CLI writes no profile when one fails, unless asked for a partial one.
#include "tools/extract/steps.hpp"

#include <cmath>
#include <exception>

#include <fmt/format.h>

#include "predictor/seek_curve.hpp"

namespace disksched::extract {
namespace {

void fail(Findings& f, const std::string& what, const std::string& fix) {
  f.result.failures.push_back(what + "; to fix it: " + fix);
}

// Every seek time the profile gives, measured or fitted, is >= 0 and finite.
void check_seek(Instrument& in, Findings& f) {
  const std::string fix =
      "rerun on a quieter host (seek times are measured as differences of reach thresholds, which "
      "late completions spoil)" +
      (in.options.timing_advice.empty() ? std::string() : "; " + in.options.timing_advice);
  for (const auto& p : f.result.seek.table)
    if (!(p.ms >= 0.0) || !std::isfinite(p.ms)) {
      fail(f, fmt::format("seek curve: the measured point at {} cylinders is {:.4f} ms", p.distance, p.ms), fix);
      return;
    }
  const DiskProfile& P = f.result.profile;
  const std::int64_t cyls = P.zones.empty() ? 1 : P.zones.back().last_cylinder + 1;
  try {
    const SeekCurve curve(P.seek, 0);
    for (std::int64_t d = 1; d < cyls; d = d < 64 ? d + 1 : d * 2) {
      const double t = curve.evaluate(d);
      if (!(t >= 0.0) || !std::isfinite(t)) {
        fail(f, fmt::format("seek curve: the fit gives {:.4f} ms at {} cylinders", t, d), fix);
        return;
      }
    }
  } catch (const std::exception& e) {
    fail(f, std::string("seek curve: ") + e.what(), fix);
  }
}

// A buffer of many segments (a drive of today's 128) makes each probe of a place it may
// hold cost as many reads of other places: where that is what spent the budget, say so.
std::string cache_cost(Instrument& in, const Findings& f) {
  if (!in.defeat || f.result.cache.evicting_reads <= 32) return {};
  return fmt::format("; the drive's read cache holds {} reads, and pushing probed sectors out of it took {} "
                     "reads of other places: turning it off (sdparm --set=RCD, hdparm -A0) saves them",
                     f.result.cache.evicting_reads, in.defeat->evictions());
}

}  // namespace

void check_result(Instrument& in, Findings& f) {
  const std::string budget = fmt::format("--budget {:.0f}", 2 * in.options.budget_ms / 1000.0);
  if (!f.heads_assumed.empty())
    fail(f, "heads: " + f.heads_assumed,
         "give the drive's number of heads with --heads N (its datasheet: two per platter, or one per "
         "recording surface)");
  const std::uint64_t total = in.target.sectors();
  if (f.zones_unsearched < total)
    fail(f,
         fmt::format("zones: measured to LBA {} ({:.0f} % of the device) and assumed one zone beyond",
                     f.zones_unsearched, 100.0 * static_cast<double>(f.zones_unsearched) / static_cast<double>(total)),
         "a longer budget, e.g. " + budget + ", or a quieter host" + cache_cost(in, f));
  for (const auto& why : f.crossings_unresolved)
    fail(f, "zones: " + why,
         "no flag measures it on this drive; --partial writes the profile anyway, with that zone's end as read");
  check_seek(in, f);
  // The profile as the loader reads it: a zone table or value it refuses is a failure.
  try {
    (void)profile_from_json(profile_to_json(f.result.profile), "the extracted profile");
  } catch (const std::exception& e) {
    fail(f, std::string("the profile does not load: ") + e.what(),
         "a longer budget (" + budget + ") or a quieter host; --partial writes it anyway");
  }
}

}  // namespace disksched::extract
