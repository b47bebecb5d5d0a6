// ZTSPTF (Hong sec. 6): ZSPTF that, in each zone, serves only the requests that
// arrived before it began scheduling that zone ("bounding the number of requests
// serviced within a zone to the size of the request queue when that zone was
// entered", Hong sec. 7.3), so a stream into one zone cannot hold it there.
#include "schedulers/mems/algorithms.hpp"
#include "schedulers/mems/zone_scheduler.hpp"

namespace disksched::mems {

AlgorithmInfo ztsptf_algorithm() {
  return {
      .name = "ztsptf",
      .description =
          "zone-based SPTF with an arrival-time constraint: a zone serves only what was queued when it began",
      .source = "Hong sec. 6, 7.1",
      .needs_mems = true,
      .params = zone_params(),
      .check = zone_check("ztsptf"),
      .factory = zone_factory("ztsptf", InZone::ArrivalConstrainedSptf),
  };
}

}  // namespace disksched::mems
