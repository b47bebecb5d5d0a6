// What the drive steps (drive_steps.hpp) found about what lies between the host and the
// platter: the read cache (segments, read-ahead), the volatile write cache (whether,
// how much, how it destages, what a FLUSH costs) and the drive's own command queue.
// Each part says whether it was measured and, if not, why; apply() puts what was
// measured into a profile's `cache` block, to_json() is its record in `source`.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/profile.hpp"

namespace disksched::extract {

struct ReadCacheFindings {
  bool measured = false;
  std::string why;                  // not measured: why
  Millis reread_ms = 0.0;           // median: a read of what was just read
  Millis far_miss_ms = 0.0;         // the least of reads far from the head
  Millis hit_threshold_ms = 0.0;    // below: served from the buffer
  bool read_cache = false;
  std::uint32_t request_sectors = 0;          // the reads' size
  std::uint64_t read_ahead_sectors = 0;       // buffered past one read's end
  std::uint64_t read_ahead_sequential_sectors = 0;  // past the last of 4 sequential reads
  unsigned segments = 0;            // streams held at once
  bool segments_at_least = false;   // every stream tried was still held
  int trials = 0;
};

struct WriteCacheFindings {
  bool measured = false;
  std::string why;
  Millis buffered_ms = 0.0;         // median of scattered writes without FUA
  Millis fua_ms = 0.0;              // median of scattered FUA writes
  bool cached = false;
  std::uint32_t write_sectors = 0;  // the writes' size
  std::uint64_t writes_before_jump = 0;  // back-to-back scattered writes acknowledged fast
  bool jump_seen = false;
  std::uint64_t destaged_in_burst = 0;   // estimated: written back while the burst ran
  double high_water = 0.75;         // assumed: the share of the buffer at the jump
  std::uint64_t buffer_bytes = 0;   // (writes_before_jump - destaged_in_burst) x size / high_water
  Millis flush_empty_ms = 0.0;      // a FLUSH with nothing to write
  Millis flush8_ms = -1.0, flush64_ms = -1.0;  // medians, after 8 and 64 scattered writes
  bool destages_when_idle = false;  // a FLUSH after an idle pause finds nothing to do
  bool idle_measured = false;
  double destage_ratio = 0.0;       // flush64 per write / a FUA write: < 1 reorders
  bool reorders_destage = false;
};

struct QueueFindings {
  bool measured = false;
  std::string why;
  std::vector<std::pair<unsigned, double>> iops;  // (commands in flight, completions per s)
  unsigned depth = 1;               // the depth past which more in flight gains nothing
  bool depth_at_least = false;      // still gaining at the deepest tried
  double qd32_over_qd1 = 1.0;
  bool reorders = false;
  Millis p99_ms = 0.0, max_ms = 0.0;  // response times at `depth`
};

struct DriveFindings {
  ReadCacheFindings read;
  WriteCacheFindings write;
  QueueFindings queue;

  // The measured parts into `p`'s cache block (what is not measured stays as it was).
  void apply(DiskProfile& p) const;
  // The record for the profile's `source` ("drive": measured / assumed per parameter).
  nlohmann::json to_json() const;
};

}  // namespace disksched::extract
