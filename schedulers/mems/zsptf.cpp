// ZSPTF (Hong sec. 6): zones in C-SCAN order, shortest positioning time first inside
// a zone. Fair across zones like C-SCAN, but a steady stream into one zone can hold
// the scheduler there ("potential starvation", Hong sec. 6); ZTSPTF bounds that.
#include "schedulers/mems/algorithms.hpp"
#include "schedulers/mems/zone_scheduler.hpp"

namespace disksched::mems {

AlgorithmInfo zsptf_algorithm() {
  return {
      .name = "zsptf",
      // Pyramiding (Hong sec. 9, Fig. 6) is a parameter; its name in the paper stays a preset.
      .presets = {{"pzsptf", "pyramid=on"}},
      .description = "zone-based SPTF for MEMS: zones in C-SCAN order, SPTF within a zone",
      .source = "Hong sec. 6, Fig. 3; pyramiding sec. 9",
      .needs_mems = true,
      .params = zone_params(),
      .check = zone_check("zsptf"),
      .factory = zone_factory("zsptf", InZone::Sptf),
  };
}

}  // namespace disksched::mems
