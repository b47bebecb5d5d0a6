// The drive steps: what lies between the host and the platter, measured from the host
// with timed probes on a drive with its cache and queue on. Each works on the raw target
// (not through the cache defeat: the buffer is what they time) and needs no geometry.
//  - read cache: a read's read-ahead (how far past it reads hit after an idle wait),
//    after one read and after a sequential run; the streams the buffer holds at once;
//  - write cache: whether writes are acknowledged from a buffer, how many scattered
//    writes it takes before the latency jumps, whether it destages when idle and in what
//    order, the FLUSH after 8 and 64 scattered writes (only inside --allow-writes);
//  - drive queue: throughput against commands in flight (needs a DriveTarget), the
//    depth past which more gains nothing, whether it reorders (QD32 over QD1).
// Each core function takes its share of time in the target's clock; the plan's steps
// (step_*.cpp) run them inside an extraction and keep their findings in Findings.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <utility>

#include "tools/extract/drive_findings.hpp"
#include "tools/extract/drive_target.hpp"
#include "tools/extract/findings.hpp"
#include "tools/extract/instrument.hpp"

namespace disksched::extract {

struct DriveStepOptions {
  std::uint64_t seed = 1;
  Millis budget_ms = 120'000.0;  // per step, on the target's clock
  // [first, last] sectors writes may touch; none: the write cache is not measured.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> writable;
  Millis idle_wait_ms = 250.0;    // for read-ahead (and destaging) to run its course
  int queue_requests = 600;       // random reads per depth tried
  unsigned max_depth = 64;
  std::function<void(double)> tick;  // progress: the fraction done
};

ReadCacheFindings probe_read_cache(ProbeTarget& t, const DriveStepOptions& o);
WriteCacheFindings probe_write_cache(ProbeTarget& t, DriveTarget* d, const DriveStepOptions& o);
QueueFindings probe_drive_queue(ProbeTarget& t, DriveTarget* d, const DriveStepOptions& o);

// All three, in that order.
DriveFindings probe_drive(ProbeTarget& t, const DriveStepOptions& o);

}  // namespace disksched::extract

namespace disksched::extract {

// The plan's steps (step_drive.cpp): each runs its core function on the target behind
// any cache defeat, within `share` of the budget (at most half of what is left), and
// keeps what it found in f.drive. The read cache is probed only where the cache check
// saw a buffer answer reads; the write cache only inside --allow-writes on a target that
// can FLUSH; the queue only on a target that holds several commands (DriveTarget).
void measure_read_cache(Instrument& in, Findings& f, double share);
void measure_write_cache(Instrument& in, Findings& f, double share);
void measure_drive_queue(Instrument& in, Findings& f, double share);

}  // namespace disksched::extract
