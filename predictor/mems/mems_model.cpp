// Placeholder until the MEMS model lands (issue 2).
#include "predictor/mems/mems_model.hpp"

namespace disksched {

std::unique_ptr<DeviceModel> make_mems_model() {
  throw ModelError("model 'mems' is not built yet");
}

}  // namespace disksched
