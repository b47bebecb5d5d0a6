#include "schedulers/registry.hpp"

namespace disksched {

void register_class_algorithms(Registry& /*r*/) {}

}  // namespace disksched
