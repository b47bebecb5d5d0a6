// Profiles of drives of today, computed from the figures a datasheet publishes.
//
// A datasheet gives capacity, rpm, average / single-track / full-stroke seek, the
// sustained transfer rate at the outer (and sometimes inner) edge, the sector format
// and the buffer size; it does not give per-track lists, and an 8-20 TB drive has
// hundreds of thousands of cylinders. So a profile here is a few figures, and the
// zone table and seek curve are computed from them (predictor/PROFILE.md, "Datasheet
// profiles", says how and which figure each parameter comes from):
//  - zones: equal bands of cylinders whose sectors per track fall linearly from the
//    outer edge's to the inner edge's; cylinders enough for the capacity;
//  - track and cylinder skews: the head switch and the single-track seek, rounded up
//    to whole physical sectors, so sequential transfer loses no rotation;
//  - sectors per track: from the sustained rate as datasheets define it (bytes of a
//    cylinder over its revolutions plus its head and cylinder switches);
//  - seek: single-track time for one cylinder, t1 + b*sqrt(s) up to a boundary, linear
//    beyond, meeting with equal slope there, ending at the full-stroke time; the
//    boundary is chosen so the average over all seek distances, weighted as datasheets
//    weight them ((max + 1 - n) for an n-cylinder seek), is the datasheet's average.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/profile.hpp"

namespace disksched {

struct DatasheetSpec {
  std::string name;
  double capacity_bytes = 0;         // the datasheet's (decimal) capacity: at least this
  double rpm = 0;
  std::int32_t heads = 1;
  std::int32_t zones = 1;
  double sustained_outer_mb_s = 0;   // MB = 10^6 bytes, including switches
  double sustained_inner_mb_s = 0;
  double avg_seek_ms = 0;            // read, over all distances weighted (max + 1 - n)
  double single_track_ms = 0;
  double full_stroke_ms = 0;
  double head_switch_ms = 0;
  double write_settle_ms = 0;        // the write average seek less the read one
  PerOp overhead_ms;
  std::uint32_t logical_sector_bytes = 512;
  std::uint32_t physical_sector_bytes = 512;
  // The buffer: segments of it cache reads (read-ahead) and writes (write-behind, the
  // volatile write cache a FLUSH drains); 0: no cache block, the platter alone.
  // Segments of read_ahead_bytes each, as many as the buffer holds (at most 128), cache
  // reads; writes go to a write buffer of write_buffer_bytes (0: a 64th of the buffer,
  // the share the measured ST2000DM006 gives scattered writes: 1 MiB of 64 MB), which
  // holds what its size holds and destages shortest positioning first.
  std::uint64_t buffer_bytes = 0;
  std::uint64_t read_ahead_bytes = 2u << 20;  // beyond the request, at most
  std::uint64_t write_buffer_bytes = 0;
  unsigned write_buffer_window = 0;   // the destage's choice: among the oldest N (0: all)
  double bus_mb_s = 0;               // the interface (SATA / SAS 600 MB/s); 0: no bus time
  nlohmann::json source = nlohmann::json::object();  // which figure comes from where
};

// The profile of a drive with these figures. Throws ModelError when they cannot be
// met together (e.g. an average seek no curve between the single-track and
// full-stroke times can reach).
DiskProfile datasheet_profile(const DatasheetSpec& spec);

// A built-in datasheet drive by name ("sata7200-8tb", ...), with an optional format
// suffix: "-512n", "-512e" or "-4kn" (without one, the format its datasheet gives), and
// then optionally "-nocache": the platter alone, no buffer (read-ahead, write-behind)
// and no bus time. nullopt when the name is not one of them.
std::optional<DiskProfile> datasheet_builtin(std::string_view name);
// The base names, for help texts.
std::vector<std::string> datasheet_builtin_names();

}  // namespace disksched
