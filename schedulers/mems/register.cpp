#include "schedulers/mems/algorithms.hpp"
#include "schedulers/registry.hpp"

namespace disksched {

void register_mems_algorithms(Registry& r) {
  r.add(mems::zsptf_algorithm());
  r.add(mems::ztsptf_algorithm());
  r.add(mems::zfcfs_algorithm());
}

}  // namespace disksched
