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
  a.factory = zone_factory("zsptf", InZone::Sptf);
  return a;
}

// Pyramiding as its own name: ZSPTF with pyramid=on by default (Hong sec. 9, Fig. 6).
AlgorithmInfo pzsptf_algorithm() {
  AlgorithmInfo a = zsptf_algorithm();
  a.name = "pzsptf";
  a.description =
      "ZSPTF with pyramiding: neighbouring zones merge (2x2, then 4x4) as the queue shrinks";
  a.source = "Hong sec. 9, Fig. 6 (proposed there)";
  a.params = zone_params(true);
  a.factory = zone_factory("pzsptf", InZone::Sptf);
  return a;
}

}  // namespace disksched::mems
