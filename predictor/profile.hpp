// Geometry profiles: the JSON description of a zoned disk that the predictor, the
// emulator and the filter load, and that `disksched extract` writes.
//
// Schema "disksched-geometry", version 1 (documented in predictor/PROFILE.md):
//   {
//     "schema": "disksched-geometry", "version": 1, "kind": "disk",
//     "name": "hp97560",
//     "sector_bytes": 512, "heads": 19,
//     "rpm": 4002                        (or "rotation_ms": 14.9925),
//     "zones": [ {"first_cylinder": 0, "last_cylinder": 1963, "sectors_per_track": 72,
//                 "track_skew_sectors": 8, "cylinder_skew_sectors": 18}  (skews optional;
//                 optional DiskSim layout fields: first_block_sectors, empty_front, spares,
//                 slips, remaps) ],  (in order; gaps between zones allowed)
//     "layout": {"mapping": "conventional", "sparing": "none", "range_cylinders": 1},
//     "write_settle_ms": 0,              (added to every non-zero move of a write)
//     "capacity_sectors": N,             (optional: export fewer LBAs than the layout holds)
//     "track_skew_sectors": 0, "cylinder_skew_sectors": 0,   (defaults for every zone)
//     "head_switch_ms": 0,
//     "overhead_ms":   {"read": 0, "write": 0, "other": 0},  (command overhead per op)
//     "completion_ms": {"read": 0, "write": 0, "other": 0},  (transfer end -> completion)
//     "seek": {"form": "two-piece", "short": {"a": 3.24, "b": 0.4}, "boundary": 383,
//              "long": {"a": 8.2, "b": 0.0075}}
//           | {"form": "three-piece", "single_cylinder_ms": 1.2, "short": ..., "boundary": ...,
//              "long": ...}
//           | {"form": "table", "points": [[1, 3.64], [2, 3.81], ...]},
//     "rotation_phase": 0.0,             (platter angle in rotations at time 0)
//     "track_phase": [ {"cylinder": 0, "head": 0, "phase": 0.25}, ... ],  (optional,
//                     measured angle of sector 0 of a track; overrides the skews there)
//     "defects": [ {"cylinder": 5, "head": 2, "sector": 17}, ... ],  (optional, slipped)
//     "controller": {...}, "bus": {...}, "cache": {...}   (optional: drive_params.hpp)
//     "source": { ... free-form provenance: tool, date, device, notes ... }
//   }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/device_model.hpp"
#include "predictor/drive_params.hpp"
#include "predictor/seek_curve.hpp"

namespace disksched {

inline constexpr int kProfileVersion = 1;

struct ZoneSpec {
  std::int64_t first_cylinder = 0;
  std::int64_t last_cylinder = 0;
  std::uint32_t sectors_per_track = 0;
  std::optional<double> track_skew_sectors;     // default: the profile's
  std::optional<double> cylinder_skew_sectors;  // default: the profile's
  // The layout of a real drive (DiskSim's dm_layout_g1); absent, today's layout.
  // Angle of the zone's first sector from the platter's index, in sectors: given, the
  // zone's skews count from its own first track; absent, from the zone before.
  std::optional<double> first_block_sectors{};
  std::uint64_t empty_front = 0;  // slots at the zone's front that hold no LBA
  std::uint64_t spares = 0;       // spare tracks or sectors, per the layout's sparing unit
  // Zone-relative physical indices (sectors; tracks under tracks-per-zone sparing).
  std::vector<std::uint64_t> slips{};                               // skipped
  std::vector<std::pair<std::uint64_t, std::uint64_t>> remaps{};    // defect -> spare
};

// Where spare space lies and how slips consume it (DiskSim's sparing schemes).
enum class Sparing {
  None,                         // 0: no spares
  TracksPerZone,                // 1: `spares` tracks at each zone's end; slips are tracks
  SectorsPerCylinder,           // 2: `spares` sectors at each cylinder's end
  SectorsPerTrack,              // 3: `spares` sectors at each track's end
  SectorsPerCylinderSlipToEnd,  // 4: as 2, slips shift the rest of the zone
  SectorsAtEnd,                 // 7: no spares in the zone; slips shift the rest of it
  SectorsPerRange,              // 8: `spares` sectors at the end of every range_cylinders
  SectorsPerZone,               // 9: `spares` sectors at each zone's end
  SectorsPerZoneSlipToEnd,      // 10: as 9, slips shift the rest of the zone
};
// The order of tracks within a cylinder.
enum class Mapping {
  Conventional,      // heads 0, 1, ... on every cylinder
  Serpentine,        // odd cylinders (counted from the zone's first) run heads backwards
  SerpentineGlobal,  // odd cylinders (counted from 0) run heads backwards
};
struct LayoutSpec {
  Mapping mapping = Mapping::Conventional;
  Sparing sparing = Sparing::None;
  std::int64_t range_cylinders = 1;  // SectorsPerRange only
};
const char* sparing_name(Sparing s);
const char* mapping_name(Mapping m);

struct TrackPhase {
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  double phase = 0.0;  // angle of sector 0, rotations [0, 1)
};

struct Defect {
  std::int64_t cylinder = 0;
  std::int32_t head = 0;
  std::uint32_t sector = 0;
};

// Per-op times: reads, writes, and everything else (trim, zero, flush, cache).
struct PerOp {
  Millis read = 0.0, write = 0.0, other = 0.0;
  Millis of(Op op) const {
    return op == Op::Read ? read : (op == Op::Write || op == Op::Zero) ? write : other;
  }
};

struct DiskProfile {
  std::string name = "disk";
  std::uint32_t sector_bytes = 512;
  std::int32_t heads = 1;
  Millis rotation_ms = 0.0;
  std::vector<ZoneSpec> zones;
  double track_skew_sectors = 0.0;
  double cylinder_skew_sectors = 0.0;
  Millis head_switch_ms = 0.0;
  PerOp overhead_ms;
  PerOp completion_ms;
  SeekCurveSpec seek;
  double rotation_phase = 0.0;
  std::vector<TrackPhase> track_phase;
  std::vector<Defect> defects;  // slipped over the whole disk (older profiles)
  DriveParams drive;  // controller, bus, cache: absent, the platter alone
  LayoutSpec layout;
  // LBAs the disk exports when fewer than its layout holds (a drive's stated capacity).
  std::optional<std::uint64_t> capacity_sectors;
  Millis write_settle_ms = 0.0;  // added to a write's seek or head switch (may be < 0)
  nlohmann::json source = nlohmann::json::object();
};

// Validates and converts. `origin` names the file in error messages. Throws
// ModelError naming the field, the value and what was expected.
DiskProfile profile_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json profile_to_json(const DiskProfile& p);
DiskProfile load_profile(const std::string& path);
void save_profile(const DiskProfile& p, const std::string& path);

// The built-in profiles: JW's HP 97560 exactly, and with Ruemmler & Wilkes / Kotz
// et al.'s skews, head switch and controller overhead.
DiskProfile hp97560_profile();
DiskProfile hp97560_full_profile();

}  // namespace disksched
