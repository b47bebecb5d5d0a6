#include "schedulers/registry.hpp"
#include "schedulers/rotational/algorithms.hpp"

namespace disksched {

void register_rotational_algorithms(Registry& r) {
  using namespace rotational;
  r.add(satf_algorithm());
  r.add(asatf_algorithm());
  r.add(satfuf_algorithm());
  r.add(satfdf_algorithm());
  r.add(satfgdf_algorithm());
  r.add(bsatf_algorithm());
  r.add(lbsatf_algorithm());
  r.add(oat_algorithm());
  r.add(gstf_algorithm());
  r.add(wstf_algorithm());
}

}  // namespace disksched
