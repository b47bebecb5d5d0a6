// Does the drive's buffer answer probes? Measured, the way DIXtrac asks (reference notes
// §4.3), before any step that assumes a read reaches the platter:
//   read cache    a re-read of the sector just read costs far less than reading the
//                 sector just behind it (which waits a revolution less one sector)
//   read-ahead    a read of a sector a little past the one just read, issued once the
//                 platter has carried it past the head, costs far less than that too
// Every write probe is FUA (O_DSYNC), which a drive must not acknowledge from its
// buffer, so a write cache cannot answer one. Where writes are allowed, write-behind is
// still looked for (check_write_behind), so that the profile says whether the drive has it.
// Where a read cache is found, also how far read-ahead reaches and how many reads of
// other places push a sector out (the segments), which is what defeating it needs:
// whether a sector is held is asked by a pair (it, then the sector behind it), which
// from the platter costs a revolution less a sector whatever a late host adds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

// The most reads of other places the segment search tries (a drive of today's buffer
// has up to 128 segments).
constexpr unsigned kMostEvictingReads = 512;

struct CacheFindings {
  bool read_cache = false;
  bool read_ahead = false;
  // Medians, ms from completion of the previous read to completion.
  Millis reread_ms = 0.0;   // the same sector again
  Millis behind_ms = 0.0;   // the sector just behind: a revolution less one sector, uncached
  Millis ahead_ms = 0.0;    // a sector just past, after the platter carried it by
  // Sectors past a read that the buffer held (a lower bound; 0: no read-ahead seen).
  std::uint32_t read_ahead_sectors = 0;
  // Reads of other places after which a sector was no longer in the buffer (0: not
  // within kMostEvictingReads).
  unsigned evicting_reads = 0;

  // Write-behind: a write without FUA acknowledged from the buffer. None: not probed
  // (`write_behind_unprobed` says why).
  std::optional<bool> write_behind;
  Millis buffered_write_ms = 0.0;  // medians, ms from a read's completion to the write's
  Millis fua_write_ms = 0.0;
  std::string write_behind_unprobed = "no writable range (--allow-writes)";

  bool any() const { return read_cache || read_ahead; }
  // One line for stderr and the profile's notes.
  std::string describe() const;
  // One line on write-behind.
  std::string describe_write_behind() const;
};

// Reads only, at places spread over the device (none at LBA 0, the usual reference).
CacheFindings check_cache(ProbeTarget& t);

// Writes `y` (about half a track past `x` on x's track, inside the writable range) right
// after reading `x`, with FUA and without: to the media a write waits for y to come
// round, from a write-behind buffer it costs command overhead and bus time. Fills the
// write-behind fields of `f`.
void check_write_behind(ProbeTarget& t, std::uint64_t x, std::uint64_t y, CacheFindings& f);

}  // namespace disksched::extract
