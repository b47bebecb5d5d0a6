#include "tools/extract/extractor.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/cache_defeat.hpp"
#include "tools/extract/drive_steps.hpp"
#include "tools/extract/steps.hpp"
#include "tools/extract/zones_sampled.hpp"

namespace disksched::extract {
namespace {

// The plan: the steps, in the order they run, each with its share of the budget (0: the
// step's own rule, steps.hpp). The measuring steps run first; the profile is built from
// them; the steps after it check it.
struct PlannedStep {
  const char* name;  // on the progress bar
  Step run;
  double share;
  bool after_profile = false;
};
// (The heads step: at most 0.45 of the budget; the zones step: a quarter of the budget
// before its crossings are cut short; the skews step: a tenth, the switch step 0.15,
// each at most half of what is left.)
const std::array<PlannedStep, 12> kPlan{{
    {"period", measure_period, 0.0},
    {"tracks", first_tracks, 0.0},
    {"heads", find_heads, 0.45},
    {"zones", find_zones_planned, 0.25},
    {"skews", measure_skews, 0.1},
    {"switch", measure_switches, 0.15},
    {"read cache", measure_read_cache, 0.08},
    {"write cache", measure_write_cache, 0.05},
    {"queue", measure_drive_queue, 0.05},
    {"seek", measure_seeks, 0.0},
    {"writes", measure_writes, 0.0},
    {"validate", validate, 0.0, true},
}};

// The period step found no rotation in repeated reads of the reference before any cache
// was looked for: a buffer answering some of them, behind a late host, looks so too.
struct PeriodUnclear : TimingNoiseError {
  using TimingNoiseError::TimingNoiseError;
};

std::vector<std::string> step_names() {
  std::vector<std::string> v;
  for (const auto& s : kPlan) v.emplace_back(s.name);
  return v;
}

// What interrogation said, set against what the timing found; the cache defeat's count.
void cross_check(Instrument& in, Findings& f) {
  // Cross-check against Translate Address where the drive does it.
  if (in.options.seeds.translate) {
    int agree = 0, asked = 0;
    const Layout& L = f.result.layout;
    for (int i = 0; i < 16; ++i) {
      const auto c = static_cast<std::int64_t>(in.rand_below(static_cast<std::uint64_t>(L.cylinders())));
      const auto h = static_cast<std::int32_t>(in.rand_below(static_cast<std::uint64_t>(L.heads)));
      const std::uint64_t lba = L.lba(c, h, L.spt_of_cylinder(c) / 2);
      if (lba >= in.target.sectors()) continue;
      auto got = in.options.seeds.translate(lba);
      if (!got) break;
      ++asked;
      agree += got->first == c && got->second == h;
    }
    if (asked > 0)
      in.note(fmt::format("Translate Address agrees on cylinder and head for {} of {} sampled LBAs", agree,
                          asked));
  }

  if (in.options.seeds.defect_list) {
    std::size_t listed = 0;
    for (const auto& d : f.result.profile.defects)
      listed += std::find(in.options.seeds.defect_list->begin(), in.options.seeds.defect_list->end(),
                          std::make_tuple(d.cylinder, d.head, d.sector)) != in.options.seeds.defect_list->end();
    in.note(fmt::format("READ DEFECT DATA lists {} defective sectors; timing found {} slipped sectors, {} of "
                        "them in the list (a drive's numbering of sectors may differ from the LBA order)",
                        in.options.seeds.defect_list->size(), f.result.profile.defects.size(), listed));
  }

  if (in.defeat) {
    f.result.cache_evictions = in.defeat->evictions();
    in.note(fmt::format("drive cache defeated: {} reads of other places pushed probed sectors out of the "
                        "buffer; {} reach pairs measured the other way round, out of read-ahead's way",
                        f.result.cache_evictions, in.turned_round));
  }
}

// The plan's steps run with one instrument on the target; the profile from what they
// found.
ExtractResult run(ProbeTarget& target, const ExtractOptions& options, const CacheFindings& cache,
                  CacheDefeat* defeat, Millis started) {
  Instrument in(target, options, cache, defeat, started, step_names());
  Findings f;
  f.result.cache = cache;
  if (in.defeat) in.notes.push_back(cache.describe());
  if (in.target.sectors() < 1024) throw std::runtime_error("the device is too small to hold a disk geometry");
  const char* current = "";
  try {
    for (const auto& s : kPlan)
      if (!s.after_profile) current = s.name, s.run(in, f, s.share);
  } catch (const TimingNoiseError& e) {
    in.finish();
    std::string msg = e.what();
    if (in.prober.period() > 0)
      msg += fmt::format(" (timing noise here: completion jitter {:.3f} ms, {:.0f} % of completions late)",
                         in.prober.period_estimate().jitter_ms, 100 * in.prober.late_fraction());
    if (!in.options.timing_advice.empty()) msg += "; to time it: " + in.options.timing_advice;
    if (!in.defeat && std::string(current) == "period") throw PeriodUnclear(msg);
    throw TimingNoiseError(msg);
  }
  build_profile(in, f);
  for (const auto& s : kPlan)
    if (s.after_profile) s.run(in, f, s.share);
  in.finish();
  cross_check(in, f);
  f.result.elapsed_ms = in.elapsed();
  f.result.probes = in.prober.probes();
  f.result.period = in.prober.period_estimate();
  f.result.notes = in.notes;
  check_result(in, f);
  record_source(in, f);
  return f.result;
}

}  // namespace

ExtractResult extract_geometry(ProbeTarget& target, const ExtractOptions& options) {
  if (!(options.budget_ms > 0)) throw std::invalid_argument("the extraction budget must be > 0");
  // As long as back-to-back reads of the reference take a revolution each, no buffer
  // answers them, and the probes go straight to the target (unchanged).
  std::string answered;
  const Millis started = target.now_ms();
  try {
    return run(target, options, CacheFindings{}, nullptr, started);
  } catch (const CacheAnswersError& e) {
    if (!options.defeat_cache) throw;
    answered = e.what();
  } catch (const PeriodUnclear& e) {
    if (!options.defeat_cache) throw;
    answered = e.what();
  }
  // They did not: find what the buffer does, then probe around it.
  const CacheFindings cache = check_cache(target);
  if (options.progress) std::fprintf(options.progress, "extract: %s\n", cache.describe().c_str());
  if (!cache.any()) throw std::runtime_error(answered);
  // A buffer that still held the sector after kMostEvictingReads reads of other places
  // would cost more than that a probe to defeat by reads: say so, rather than probe it unseen.
  if (cache.read_cache && cache.evicting_reads == 0)
    throw std::runtime_error(fmt::format(
        "{}; the drive's read cache still held a sector after {} reads of other places (more segments than "
        "reads can push out within a budget), so it cannot be probed around: to fix it, turn the read cache "
        "off (sdparm --set=RCD, hdparm -A0) or extract from the platter alone (diskemu: the model's -nocache)",
        cache.describe(), kMostEvictingReads));
  CacheDefeat defeat(target, cache);
  return run(defeat, options, cache, &defeat, started);
}

}  // namespace disksched::extract
