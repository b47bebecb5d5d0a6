// The MEMS zone family (Hong et al., MASCOTS 2003).
#pragma once

#include "schedulers/registry.hpp"

namespace disksched::mems {

AlgorithmInfo zsptf_algorithm();
AlgorithmInfo ztsptf_algorithm();
AlgorithmInfo zfcfs_algorithm();

}  // namespace disksched::mems
