// The drive steps in the extraction's plan (drive_steps.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "tools/extract/drive_steps.hpp"

namespace disksched::extract {
namespace {

// The buffer is what these steps time: never through the cache defeat.
ProbeTarget& raw(Instrument& in) { return in.defeat ? in.defeat->inner() : in.target; }

DriveStepOptions options_for(Instrument& in, double share) {
  DriveStepOptions o;
  o.seed = in.options.seed;
  o.budget_ms = std::max(0.0, std::min(share * in.options.budget_ms, 0.5 * in.left()));
  o.writable = in.options.writable;
  o.tick = [&in](double x) { in.tick(x); };
  return o;
}

}  // namespace

void measure_read_cache(Instrument& in, Findings& f, double share) {
  in.step("read cache");
  ReadCacheFindings& r = f.drive.read;
  if (!in.options.drive_steps) {
    r.why = "drive steps off";
    return;
  }
  if (!f.result.cache.any()) {
    r.why = "the cache check saw no buffer answer reads";
    return;
  }
  r = probe_read_cache(raw(in), options_for(in, share));
  if (r.measured && r.read_cache)
    in.note(fmt::format("read cache: {} sectors read ahead after a read ({} after sequential reads), {}{} "
                        "streams held",
                        r.read_ahead_sectors, r.read_ahead_sequential_sectors, r.segments_at_least ? "at least " : "",
                        r.segments));
}

void measure_write_cache(Instrument& in, Findings& f, double share) {
  in.step("write cache");
  if (!in.options.drive_steps) {
    f.drive.write.why = "drive steps off";
    return;
  }
  ProbeTarget& t = raw(in);
  WriteCacheFindings& w = f.drive.write = probe_write_cache(t, dynamic_cast<DriveTarget*>(&t), options_for(in, share));
  if (!w.measured) return;
  in.note(w.cached ? fmt::format("write cache: {} KiB (writes acknowledged before the latency jumps: {}), "
                                 "FLUSH after 8 / 64 scattered writes {:.1f} / {:.1f} ms",
                                 w.buffer_bytes / 1024, w.writes_before_jump, w.flush8_ms, w.flush64_ms)
                   : fmt::format("writes are not cached (a write without FUA takes {:.2f} ms, with {:.2f} ms)",
                                 w.buffered_ms, w.fua_ms));
}

void measure_drive_queue(Instrument& in, Findings& f, double share) {
  in.step("queue");
  if (!in.options.drive_steps) {
    f.drive.queue.why = "drive steps off";
    return;
  }
  ProbeTarget& t = raw(in);
  QueueFindings& q = f.drive.queue = probe_drive_queue(t, dynamic_cast<DriveTarget*>(&t), options_for(in, share));
  if (q.measured)
    in.note(fmt::format("drive queue: QD32 / QD1 throughput {:.2f}, {}", q.qd32_over_qd1,
                        q.reorders ? fmt::format("reorders, depth {}{}", q.depth_at_least ? "at least " : "", q.depth)
                                   : std::string("no reordering seen")));
}

}  // namespace disksched::extract
