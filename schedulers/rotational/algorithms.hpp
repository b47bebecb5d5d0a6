// The rotation-aware algorithms (JW; Huang & Chiueh), one AlgorithmInfo each,
// defined beside each algorithm's code and registered by register.cpp.
#pragma once

#include "schedulers/registry.hpp"

namespace disksched::rotational {

AlgorithmInfo satf_algorithm();     // satf.cpp
AlgorithmInfo asatf_algorithm();    // asatf.cpp
AlgorithmInfo satfuf_algorithm();   // satfuf.cpp
AlgorithmInfo satfdf_algorithm();   // satfdf.cpp
AlgorithmInfo satfgdf_algorithm();  // satfgdf.cpp
AlgorithmInfo bsatf_algorithm();    // bsatf.cpp
AlgorithmInfo lbsatf_algorithm();   // lbsatf.cpp
AlgorithmInfo oat_algorithm();      // oat_scheduler.cpp
AlgorithmInfo gstf_algorithm();     // gstf.cpp
AlgorithmInfo wstf_algorithm();     // wstf.cpp

}  // namespace disksched::rotational
