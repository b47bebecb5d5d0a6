// ZFCFS (Hong sec. 7.1): zones in C-SCAN order, arrival order inside a zone. Hong's
// baseline for the choice of in-zone algorithm.
#include "schedulers/mems/algorithms.hpp"
#include "schedulers/mems/zone_scheduler.hpp"

namespace disksched::mems {

AlgorithmInfo zfcfs_algorithm() {
  AlgorithmInfo a;
  a.name = "zfcfs";
  a.description = "zone-based FCFS for MEMS: zones in C-SCAN order, arrival order within a zone";
  a.source = "Hong sec. 7.1";
  a.needs_mems = true;
  a.params = zone_params();
  a.factory = zone_factory("zfcfs", InZone::Fcfs);
  return a;
}

}  // namespace disksched::mems
