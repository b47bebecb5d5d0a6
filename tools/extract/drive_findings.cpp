#include "tools/extract/drive_findings.hpp"

#include <algorithm>

namespace disksched::extract {

void DriveFindings::apply(DiskProfile& p) const {
  CacheParams& c = p.drive.cache;
  if (read.measured) {
    if (read.read_cache) {
      p.drive.has_cache = true;
      const std::uint64_t ahead = std::max(read.read_ahead_sectors, read.read_ahead_sequential_sectors);
      c.segments = std::max(1u, read.segments);
      // A segment holds one read and its read-ahead (the least that shows as hits).
      c.segment_sectors = static_cast<unsigned>(std::max<std::uint64_t>(ahead, read.request_sectors));
      c.write_segments = c.segments;
      c.continuous_read = ahead > 0 ? 3 : 0;
      c.max_read_ahead = static_cast<unsigned>(ahead);
      c.min_read_ahead = 0;
      c.read_ahead_over_requested = true;
      c.read_hits_on_write_data = true;
    } else if (!write.cached) {
      c = CacheParams{};
      p.drive.has_cache = false;
    }
  }
  if (write.measured) {
    if (write.cached && write.jump_seen && write.writes_before_jump <= 1 && c.enabled()) {
      // One write at a time (the next waits for its destage): write-behind through a
      // write segment of its own, as DiskSim has it, not a write buffer by size.
      c.fast_write = 1;
      c.write_buffer_bytes = 0;
      c.separate_write_segment = true;
      c.write_segments = 1;
      c.combine_sequential_writes = true;
    } else if (write.cached && write.buffer_bytes > 0) {
      p.drive.has_cache = true;
      c.fast_write = 0;
      c.write_buffer_bytes = write.buffer_bytes;
      c.write_buffer_high_water = write.high_water;
      // A destage that does not reorder is one in arrival order: a window of one.
      c.write_buffer_window = write.reorders_destage ? 0 : 1;
    } else if (!write.cached) {
      c.fast_write = 0;
      c.write_buffer_bytes = 0;
    }
  }
}

namespace {

nlohmann::json read_json(const ReadCacheFindings& r) {
  if (!r.measured) return {{"measured", false}, {"why", r.why}};
  return {{"measured", true},
          {"read_cache", r.read_cache},
          {"reread_ms", r.reread_ms},
          {"far_miss_ms", r.far_miss_ms},
          {"hit_threshold_ms", r.hit_threshold_ms},
          {"request_sectors", r.request_sectors},
          {"read_ahead_sectors", r.read_ahead_sectors},
          {"read_ahead_sequential_sectors", r.read_ahead_sequential_sectors},
          {"segments", r.segments},
          {"segments_at_least", r.segments_at_least},
          {"trials", r.trials},
          {"cache.segments", r.segments_at_least ? "measured (at least: every stream tried was held)" : "measured"},
          {"cache.segment_sectors", "measured: the read-ahead that hits (one read and its read-ahead a segment)"},
          {"cache.max_read_ahead", "measured"},
          {"cache.continuous_read", "assumed 3 (read ahead up to max_read_ahead) when any read-ahead hits"},
          {"cache.read_ahead_over_requested", "assumed true"},
          {"cache.read_hits_on_write_data", "assumed true"}};
}

nlohmann::json write_json(const WriteCacheFindings& w) {
  if (!w.measured) return {{"measured", false}, {"why", w.why}};
  nlohmann::json j{{"measured", true},
                   {"cached", w.cached},
                   {"buffered_write_ms", w.buffered_ms},
                   {"fua_write_ms", w.fua_ms},
                   {"write_sectors", w.write_sectors},
                   {"flush_empty_ms", w.flush_empty_ms},
                   {"flush_after_8_ms", w.flush8_ms},
                   {"flush_after_64_ms", w.flush64_ms}};
  if (!w.cached) return j;
  j["writes_before_latency_jump"] = w.writes_before_jump;
  j["jump_seen"] = w.jump_seen;
  j["destaged_during_burst_estimate"] = w.destaged_in_burst;
  j["destages_when_idle"] = w.idle_measured ? nlohmann::json(w.destages_when_idle) : nlohmann::json(nullptr);
  j["destage_per_write_over_fua_write"] = w.destage_ratio;
  j["cache.write_buffer_bytes"] =
      "measured: writes acknowledged from the buffer before the latency jumps (less those destaged meanwhile, estimated), x their size, / the high-water mark";
  j["cache.write_buffer_high_water"] = "assumed 0.75 (the jump comes at the high-water mark; its share is not visible)";
  if (w.jump_seen && w.writes_before_jump <= 1)
    j["cache.fast_write"] = "measured: one write is buffered at a time (write-behind through one write segment; "
                            "combining assumed)";
  j["cache.write_buffer_window"] = w.reorders_destage
                                       ? "measured: the destage reorders (0: shortest positioning first among all)"
                                       : "measured: the destage keeps arrival order (1)";
  return j;
}

nlohmann::json queue_json(const QueueFindings& q) {
  if (!q.measured) return {{"measured", false}, {"why", q.why}};
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& [d, iops] : q.iops) curve.push_back({d, iops});
  return {{"measured", true},
          {"iops_by_depth", curve},
          {"depth", q.depth},
          {"depth_at_least", q.depth_at_least},
          {"qd32_over_qd1", q.qd32_over_qd1},
          {"reorders", q.reorders},
          {"p99_ms_at_depth", q.p99_ms},
          {"max_ms_at_depth", q.max_ms},
          {"age_limit", "not measured: a limit, if the firmware has one, lies above max_ms_at_depth or does not cut it"},
          {"use", q.reorders ? "diskemu drive-queue=DEPTH, sim --drive-queue DEPTH (firmware satf)"
                             : "no reordering seen: drive-queue=1"}};
}

}  // namespace

nlohmann::json DriveFindings::to_json() const {
  return {{"read_cache", read_json(read)}, {"write_cache", write_json(write)}, {"drive_queue", queue_json(queue)}};
}

}  // namespace disksched::extract
