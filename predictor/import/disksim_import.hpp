// A drive from DiskSim 4.0's files: a system file (.parv), a disk spec (.diskspecs) or a
// model (.model), with what the profile does not model listed by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "predictor/import/disksim_overrides.hpp"
#include "predictor/profile.hpp"

namespace disksched::disksim {

struct DiskSimImport {
  DiskProfile profile;
  std::vector<std::string> ignored;  // one line per key not modelled: "BLOCK: Key (FILE:LINE)"
  std::vector<std::string> notes;    // what the profile approximates or left out
  std::int64_t stated_blocks = 0;    // the model's "Block count"
  std::vector<std::string> files;    // every file read
};

// `file`: a .parv (the disk instantiated in it), a .diskspecs (its disksim_disk) or a
// .model (its dm_disk). `model`, if not empty, is a .model whose dm_disk replaces the
// disk's "Model". Throws ParamError (file:line and what was expected) or ModelError
// (a layout the files state but that cannot be, e.g. more slips than spares).
// `overrides` (DiskSim's command-line overrides, disksim_overrides.hpp) apply to `file`.
DiskSimImport import_disksim(const std::string& file, const std::string& model = "",
                             const std::vector<Override>& overrides = {});

}  // namespace disksched::disksim
