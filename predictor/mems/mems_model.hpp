// The CMU G2 MEMS device (Hong et al. Table 1, eqs. 1-6).
#pragma once

#include <memory>

#include "predictor/device_model.hpp"

namespace disksched {

// The built-in `mems` model with Hong's Table 1 parameters.
std::unique_ptr<DeviceModel> make_mems_model();

}  // namespace disksched
