// The HP C2247A as `disksched model import` reads DiskSim's files, and one extraction of
// it in virtual time, for the extraction tests that run the whole thing (test_cache,
// test_late). Needs DISKSIM_VALID_DIR.
#pragma once

#include <cstdio>

#include "predictor/import/disksim_import.hpp"
#include "predictor/profile.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/virtual_target.hpp"

namespace disksched::extract::testing {

// An empty front of 17 tracks (LBA 0 on head 4 of cylinder 1), spare tracks at each
// zone's end, slipped tracks, each zone's first track at its own angle; its cache as
// DiskSim has it but with write-behind on and two read segments beside the write segment
// (DiskSim's file has one), as bench/extract/hp_c2247a-drive.json: more for the
// extractor to defeat.
inline DiskProfile c2247a_imported(bool cache) {
  DiskProfile p = disksim::import_disksim(DISKSIM_VALID_DIR "/hp_c2247a.parv").profile;
  p.drive.has_cache = p.drive.has_bus = cache;
  p.drive.cache.fast_write = 1;
  p.drive.cache.segments = 2;
  return p;
}

inline ExtractResult run_extraction(VirtualTarget& t, Millis budget_ms, bool defeat = true,
                                    std::FILE* progress = nullptr, bool drive_steps = true) {
  ExtractOptions o;
  o.drive_steps = drive_steps;
  o.budget_ms = budget_ms;
  o.seed = 3;
  o.name = "test";
  o.defeat_cache = defeat;
  o.progress = progress;
  return extract_geometry(t, o);
}

inline void print_extraction(const char* title, const ExtractResult& r, const Comparison& c) {
  std::printf("%s: %llu probes, %.1f s virtual, validation %.1f %%, jitter %.3f ms, %.0f %% late\n",
              title, static_cast<unsigned long long>(r.probes), r.elapsed_ms / 1000.0,
              100 * r.validation.within_tolerance, r.period.jitter_ms, 100 * r.period.late_fraction);
  for (const auto& l : c.lines) std::printf("  %s\n", l.c_str());
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
}

}  // namespace disksched::extract::testing
