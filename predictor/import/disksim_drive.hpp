// DiskSim 4.0's drive beyond the platter, into DriveParams: the disksim_disk block's
// command overheads and cache keys, and the per-block transfer times of the buses (and
// controllers) between the host and the disk in the .parv topology.
#pragma once

#include <string>
#include <vector>

#include "predictor/drive_params.hpp"
#include "predictor/import/disksim_params.hpp"

namespace disksched::disksim {

struct DriveImport {
  DriveParams drive;
  // Keys of the disk block (and of the buses and controllers on its path) that the drive
  // model does not use, as written, e.g. "Never disconnect (hp_c2247a.diskspecs:15)".
  std::vector<std::string> ignored;
  // The parameters it read (of the disk block and of the buses and controllers), for an
  // importer that lists the unread ones itself.
  std::vector<const Param*> used;
};

// `file`: the parsed .parv; `disk`: its disksim_disk block. Throws ParamError
// ("FILE:LINE: expected ...") for a key whose value is not what it must be.
DriveImport import_drive(const ParamFile& file, const Block& disk);

}  // namespace disksched::disksim
