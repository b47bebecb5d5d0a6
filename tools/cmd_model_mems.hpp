// The MEMS parts of `disksched model`: show, map (Hong Fig. 2) and zones (Hong sec. 7.2).
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "predictor/device_model.hpp"

namespace disksched::cli {

nlohmann::json describe_mems_model(const DeviceModel& m);
void map_mems(const DeviceModel& m, const std::string& from, const std::string& out);
void add_mems_zone_command(CLI::App& model);

}  // namespace disksched::cli
