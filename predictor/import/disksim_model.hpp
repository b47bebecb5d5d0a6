// DiskSim 4.0's dm_disk block (a .model file): the dm_layout_g1 layout and the
// dm_mech_g1 mechanics, as a geometry profile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "predictor/import/disksim_keys.hpp"
#include "predictor/profile.hpp"

namespace disksched::disksim {

struct ModelImport {
  DiskProfile profile;
  std::int64_t stated_blocks = 0;     // the file's "Block count"
  std::int64_t stated_cylinders = 0;  // the file's "Number of cylinders"
  std::vector<std::string> notes;     // what the profile approximates, for the user
};

// Reads `dm_disk` (its keys marked in `read`); "Full seek curve" files are found beside
// the file that names them. Throws ParamError (file:line, what was expected).
ModelImport import_dm_disk(const Block& dm_disk, KeysRead& read);

// A DiskSim extracted seek file: "Seek distances measured: N", then N lines
// "distance, time[, stdev]" (ms). Throws ParamError naming the file and line.
std::vector<std::pair<std::int64_t, double>> read_seek_file(const std::string& path);

}  // namespace disksched::disksim
