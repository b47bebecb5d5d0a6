// Wired to predictor/mems/ once the MEMS model lands.
#include "tools/cmd_model_mems.hpp"

#include <stdexcept>

namespace disksched::cli {

nlohmann::json describe_mems_model(const DeviceModel&) {
  throw std::runtime_error("the MEMS model is not built yet");
}
void map_mems(const DeviceModel&, const std::string&, const std::string&) {
  throw std::runtime_error("the MEMS model is not built yet");
}
void add_mems_zone_command(CLI::App&) {}

}  // namespace disksched::cli
