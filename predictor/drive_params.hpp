// What a drive has beyond its platter: the controller's command overheads, the bus to
// the host and the segmented cache. The profile's "controller", "bus" and "cache" blocks
// (predictor/PROFILE.md). Each block absent leaves that part as it was before drives had
// one: no extra overheads, no bus time, no cache. So a profile without them (the HP
// 97560, MEMS) costs exactly what the platter says.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "predictor/device_model.hpp"

namespace disksched {

// Command overheads, in ms, added to the profile's own overhead_ms / completion_ms.
struct ControllerParams {
  // [write?][miss?][after a write?]: the eight {read, write} x {hit, miss} x {after read,
  // after write} times from the command's arrival until the drive acts on it.
  Millis command[2][2][2] = {};
  Millis read_completion = 0.0;   // last byte sent -> completion reported
  Millis write_completion = 0.0;
  Millis data_preparation = 0.0;  // before the first byte of a transfer to or from the host
  Millis reselect = 0.0;          // a read that waited for the media reconnects to the host
  // A write-through write whose data is in before the media is done disconnects
  // (write_disconnect) and reconnects when the media is (write_reselect) to report it
  // (DiskSim's "Write disconnect overhead", "First reselect overhead"; 0: as before).
  Millis write_disconnect = 0.0;
  Millis write_reselect = 0.0;
  // A write's seek (after a write that it does not continue) takes at least this long
  // (DiskSim's "Minimum seek delay").
  Millis min_write_seek = 0.0;
  // DiskSim's "Extra write disconnect": a write that does not continue the previous write
  // disconnects at once and reconnects for its data later. From its arrival, the
  // mechanism may move after extra_command + extra_seek_delta; the data starts crossing
  // after extra_command + extra_disconnect + extra_inter_disconnect + write_reselect +
  // data_preparation; its media write waits until min(sectors, 10) sectors (15 for a
  // write of 45 or more) are in the buffer; waiting for the media it disconnects with
  // extra_disconnect2 and reconnects with extra_reselect.
  bool extra_write_disconnect = false;
  Millis extra_command = 0.0;           // "Extradisc command overhead"
  Millis extra_disconnect = 0.0;        // "Extradisc disconnect overhead"
  Millis extra_inter_disconnect = 0.0;  // "Extradisc inter-disconnect delay"
  Millis extra_disconnect2 = 0.0;       // "Extradisc 2nd disconnect overhead"
  Millis extra_seek_delta = 0.0;        // "Extradisc seek delta"
  Millis extra_reselect = 0.0;          // "Other reselect overhead"

  Millis command_ms(bool write, bool miss, bool after_write) const {
    return command[write][miss][after_write];
  }
  bool operator==(const ControllerParams&) const = default;
};

// The interface between the drive and the host; per-sector times, 0: as fast as the media.
struct BusParams {
  Millis read_sector = 0.0;    // drive -> host, per sector
  Millis write_sector = 0.0;   // host -> drive, per sector
  bool operator==(const BusParams&) const = default;
};

// The segmented buffer (DiskSim's disksim_disk cache keys, with their meanings).
struct CacheParams {
  unsigned segments = 0;            // 0: no cache at all (every read a miss, writes through)
  unsigned segment_sectors = 0;
  unsigned write_segments = 0;      // at most this many segments hold unwritten data
  bool separate_write_segment = false;  // one segment only for writes, beside `segments`
  // Read-ahead after a read: 0 none, 1 to the end of the track, 2 of the cylinder,
  // 3 until the segment is full, 4 DiskSim's DEC prefetch scheme (to the end of the
  // track after the request, a track more for a sequential reader) (DiskSim's "Buffer
  // continuous read").
  unsigned continuous_read = 0;
  unsigned min_read_ahead = 0;      // sectors read ahead even when a request arrives
  unsigned max_read_ahead = 0;      // sectors read ahead after the request's end at most
  // Read-ahead may overwrite the sectors the request sent the host (it runs up to a
  // segment past the request's end); else it stops once they and it fill the segment.
  bool read_ahead_over_requested = false;
  // The sectors a read sent the host leave its segment when it completes (a later read of
  // them misses); read-ahead runs as over requested (DiskSim's "Read-ahead over
  // requested = -1").
  bool forget_sent = false;
  // A read whose first sector the running read-ahead has not read yet: 2 waits for the
  // read-ahead (a hit); 1 only when that sector is the very next the read-ahead reads; 0
  // never: it is a miss and stops the read-ahead (DiskSim's "Allow almost read hits" 1, 0).
  unsigned read_ahead_wait = 2;
  bool read_ahead_on_idle_hit = false;     // a full hit restarts read-ahead behind it
  bool read_any_free_blocks = false;       // DiskSim's "Read any free blocks": imported, not modelled
  // 0: writes go through to the media before completing; 1, 2: write-behind (fast
  // write): a write completes once its data is in the buffer and is destaged later.
  unsigned fast_write = 0;
  bool combine_sequential_writes = false;  // a write that continues buffered dirty data
                                           // joins its destage
  double high_water = 0.0;  // fraction of a read in the buffer before the drive reconnects
  double low_water = 0.0;   // fraction of a write's data buffered before the media write
  bool read_hits_on_write_data = false;    // reads may hit sectors a write left buffered
  // A drive of today's write buffer (not DiskSim's): it holds as many bytes of dirty
  // writes as this says, scattered or not, and destages the one of shortest positioning
  // first whenever the mechanism is idle, and before the next command above
  // write_buffer_high_water full; a write waits for room when it is full
  // (emulator/device/write_cache.hpp's WhenIdle). 0: none (fast_write's write-behind, if
  // any: a write per write segment, destaged in arrival order, as DiskSim has it).
  std::uint64_t write_buffer_bytes = 0;
  double write_buffer_high_water = 0.75;
  // The destage chooses among the oldest this many dirty writes only (0: all of them),
  // as a desktop drive's firmware reorders only a few.
  unsigned write_buffer_window = 0;

  bool enabled() const { return segments > 0 && segment_sectors > 0; }
  bool write_behind() const { return enabled() && fast_write > 0; }
  bool write_buffer() const { return write_buffer_bytes > 0; }
  bool operator==(const CacheParams&) const = default;
};

struct DriveParams {
  ControllerParams controller;
  BusParams bus;
  CacheParams cache;
  // Which blocks the profile gave (only those are written back).
  bool has_controller = false, has_bus = false, has_cache = false;

  // True when the drive is just its platter: today's behaviour.
  bool platter_only() const { return !has_controller && !has_bus && !has_cache; }
  bool operator==(const DriveParams&) const = default;
};

// Reads the "controller", "bus" and "cache" blocks of profile `j` (each optional).
// Throws ModelError "profile 'ORIGIN': field 'cache.segments': value V: expected WHAT".
DriveParams drive_params_from_json(const nlohmann::json& j, const std::string& origin);
// Writes the blocks `p` has into profile `j`.
void drive_params_to_json(const DriveParams& p, nlohmann::json& j);

}  // namespace disksched
