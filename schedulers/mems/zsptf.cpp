// ZSPTF (Hong sec. 6): zones in C-SCAN order, shortest positioning time first inside
// a zone. Fair across zones like C-SCAN, but a steady stream into one zone can hold
// the scheduler there ("potential starvation", Hong sec. 6); ZTSPTF bounds that.
#include "schedulers/mems/algorithms.hpp"
#include "schedulers/mems/zone_scheduler.hpp"

namespace disksched::mems {

AlgorithmInfo zsptf_algorithm() {
  AlgorithmInfo a;
  a.name = "zsptf";
  a.description = "zone-based SPTF for MEMS: zones in C-SCAN order, SPTF within a zone";
  a.source = "Hong sec. 6, Fig. 3; pyramiding sec. 9";
  a.needs_mems = true;
  a.params = zone_params();
  // Pyramiding (Hong sec. 9, Fig. 6) is a parameter; its name in the paper stays a preset.
  a.presets = {{"pzsptf", "pyramid=on"}};
  a.factory = zone_factory("zsptf", InZone::Sptf);
  return a;
}

}  // namespace disksched::mems
