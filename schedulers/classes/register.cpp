#include "schedulers/classes/algorithms.hpp"
#include "schedulers/registry.hpp"

namespace disksched {

void register_class_algorithms(Registry& r) {
  r.add(classes::priority_algorithm());
  r.add(classes::qos_algorithm());
}

}  // namespace disksched
