// Does the drive's buffer answer probes? Measured, the way DIXtrac asks (reference notes
// §4.3), before any step that assumes a read reaches the platter:
//   read cache    a re-read of the sector just read costs far less than reading the
//                 sector just behind it (which waits a revolution less one sector)
//   read-ahead    a read of a sector a little past the one just read, issued once the
//                 platter has carried it past the head, costs far less than that too
// Write-behind is not probed: every write probe is FUA (O_DSYNC), which a drive must not
// acknowledge from its buffer, so a write cache cannot answer one.
// Where a read cache is found, also how far read-ahead reaches and how many reads of
// other places push a sector out (the segments), which is what defeating it needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

struct CacheFindings {
  bool read_cache = false;
  bool read_ahead = false;
  // Medians, ms from completion of the previous read to completion.
  Millis reread_ms = 0.0;   // the same sector again
  Millis behind_ms = 0.0;   // the sector just behind: a revolution less one sector, uncached
  Millis ahead_ms = 0.0;    // a sector just past, after the platter carried it by
  // Sectors past a read that the buffer held (a lower bound; 0: no read-ahead seen).
  std::uint32_t read_ahead_sectors = 0;
  // Reads of other places after which a sector was no longer in the buffer.
  unsigned evicting_reads = 0;

  bool any() const { return read_cache || read_ahead; }
  // One line for stderr and the profile's notes.
  std::string describe() const;
};

// Reads only, at places spread over the device (none at LBA 0, the usual reference).
CacheFindings check_cache(ProbeTarget& t);

}  // namespace disksched::extract
