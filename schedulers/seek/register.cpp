#include "schedulers/registry.hpp"

namespace disksched {

void register_seek_algorithms(Registry& /*r*/) {}

}  // namespace disksched
