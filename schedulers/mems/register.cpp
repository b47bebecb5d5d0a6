#include "schedulers/registry.hpp"

namespace disksched {

void register_mems_algorithms(Registry& /*r*/) {}

}  // namespace disksched
