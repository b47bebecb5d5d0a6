// The seek-based family (JW sec. 2; Geist & Daniel via JW; Deodhar & Naik). Each
// algorithm lives in its own file beside its parameter declarations.
#pragma once

#include <string_view>

#include "schedulers/registry.hpp"

namespace disksched::seek {

// The `by=cyl|lbn` parameter shared by SSTF and the elevators.
ParamSpec by_param(std::string_view what);

AlgorithmInfo fcfs_algorithm();
AlgorithmInfo sstf_algorithm();
AlgorithmInfo look_algorithm();
AlgorithmInfo clook_algorithm();
AlgorithmInfo scan_algorithm();
AlgorithmInfo cscan_algorithm();
AlgorithmInfo vr_algorithm();
AlgorithmInfo sswt_algorithm();

}  // namespace disksched::seek
