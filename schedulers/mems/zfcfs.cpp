// ZFCFS (Hong sec. 7.1): zones in C-SCAN order, arrival order inside a zone. Hong's
// baseline for the choice of in-zone algorithm.
#include "schedulers/mems/algorithms.hpp"
#include "schedulers/mems/zone_scheduler.hpp"

namespace disksched::mems {

AlgorithmInfo zfcfs_algorithm() {
  return {
      .name = "zfcfs",
      .description = "zone-based FCFS for MEMS: zones in C-SCAN order, arrival order within a zone",
      .source = "Hong sec. 7.1",
      .needs_mems = true,
      .params = zone_params(),
      .check = zone_check("zfcfs"),
      .factory = zone_factory("zfcfs", InZone::Fcfs),
  };
}

}  // namespace disksched::mems
