// The class-aware family (Ganger & Patt sec. 6).
#pragma once

#include "schedulers/registry.hpp"

namespace disksched::classes {

AlgorithmInfo priority_algorithm();
AlgorithmInfo qos_algorithm();  // qos.cpp

}  // namespace disksched::classes
