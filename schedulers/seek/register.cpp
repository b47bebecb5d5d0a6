#include "schedulers/registry.hpp"
#include "schedulers/seek/algorithms.hpp"

namespace disksched {

void register_seek_algorithms(Registry& r) {
  r.add(seek::fcfs_algorithm());
  r.add(seek::sstf_algorithm());
  r.add(seek::scan_algorithm());
  r.add(seek::look_algorithm());
  r.add(seek::cscan_algorithm());
  r.add(seek::clook_algorithm());
  r.add(seek::vr_algorithm());
  r.add(seek::sswt_algorithm());
}

}  // namespace disksched
