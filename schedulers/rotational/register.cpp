#include "schedulers/registry.hpp"

namespace disksched {

void register_rotational_algorithms(Registry& /*r*/) {}

}  // namespace disksched
