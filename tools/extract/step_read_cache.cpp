// The read-cache step (drive_steps.hpp): read-ahead and the streams the buffer holds.
//
// A read is a hit when it completes well below the least time of reads half the device
// away (a miss there pays a long seek): the threshold is half-way between a re-read of
// what was just read and the least far miss. Read-ahead: read a place, wait idle so the
// read-ahead runs its course, read half the device away (the head leaves), then read k
// sectors past the first read's end: a hit says the read-ahead got that far. The
// largest such k is found by doubling and bisection, each trial at a fresh place.
// Streams: read N places (the last far from the first), then the sector past the first:
// it is still held when the buffer keeps N streams (the first is the least recently used).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tools/extract/drive_probe_util.hpp"

namespace disksched::extract {
namespace {

using drive::latency;
using drive::median_of;
using drive::Session;

// Re-reads and far misses: whether a cache answers, and the hit threshold.
void calibrate(Session& s, ReadCacheFindings& r) {
  std::vector<Millis> reread, far;
  for (int i = 0; i < 12; ++i) {
    const std::uint64_t x = s.place(s.req);
    s.t.read(x, s.req);
    reread.push_back(latency(s.t.read(x, s.req)));
    far.push_back(latency(s.t.read(s.far_from(x, s.req), s.req)));
  }
  r.reread_ms = median_of(reread);
  r.far_miss_ms = *std::min_element(far.begin(), far.end());
  r.read_cache = r.reread_ms < 0.5 * r.far_miss_ms;
  r.hit_threshold_ms = 0.5 * (r.reread_ms + r.far_miss_ms);
}

// Is the sector k past the end of a read (or of 4 sequential reads) buffered once the
// drive has been idle and then read far away?
bool ahead_hits(Session& s, const ReadCacheFindings& r, std::uint64_t k, bool sequential) {
  const std::uint32_t runs = sequential ? 4 : 1;
  const std::uint64_t x = s.place(std::uint64_t{runs} * s.req + k + 1);
  for (std::uint32_t i = 0; i < runs; ++i) s.t.read(x + std::uint64_t{i} * s.req, s.req);
  s.idle(s.o.idle_wait_ms);
  s.t.read(s.far_from(x, s.req), s.req);
  return latency(s.t.read(x + std::uint64_t{runs} * s.req + k, 1)) < r.hit_threshold_ms;
}

// The sectors past a read's end that hit: doubling, then bisection.
std::uint64_t read_ahead(Session& s, ReadCacheFindings& r, bool sequential) {
  ++r.trials;
  if (!ahead_hits(s, r, 0, sequential)) return 0;
  const std::uint64_t kmax = std::min<std::uint64_t>(1u << 18, s.t.sectors() / 4);
  std::uint64_t lo = 0, hi = 1;
  while (hi < kmax && !s.over()) {
    ++r.trials;
    if (!ahead_hits(s, r, hi, sequential)) break;
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1 && !s.over()) {
    ++r.trials;
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (ahead_hits(s, r, mid, sequential) ? lo : hi) = mid;
  }
  return lo + 1;
}

// After reads of n places (a short pause after each for its read-ahead to begin; the
// last half the device from the first, so that a miss of the first pays a long seek),
// is the first one's still held?
bool streams_held(Session& s, const ReadCacheFindings& r, unsigned n) {
  const std::uint64_t span = std::uint64_t{s.req} * 2;
  const std::uint64_t first = s.place(span);
  for (unsigned i = 0; i < n; ++i) {
    s.t.read(i == 0 ? first : i + 1 == n ? s.far_from(first, span) : s.place(span), s.req);
    s.idle(5.0);
  }
  const std::uint64_t probe = r.read_ahead_sectors > 0 ? first + s.req : first;
  return latency(s.t.read(probe, 1)) < r.hit_threshold_ms;
}

void count_segments(Session& s, ReadCacheFindings& r) {
  constexpr unsigned kMax = 256;
  unsigned lo = 1, hi = 2;
  while (hi <= kMax && !s.over()) {
    ++r.trials;
    if (!streams_held(s, r, hi)) break;
    lo = hi;
    hi *= 2;
  }
  if (hi > kMax || s.over()) {
    r.segments = lo;
    r.segments_at_least = true;
    return;
  }
  while (hi - lo > 1 && !s.over()) {
    ++r.trials;
    const unsigned mid = lo + (hi - lo) / 2;
    (streams_held(s, r, mid) ? lo : hi) = mid;
  }
  r.segments = lo;
  r.segments_at_least = s.over();
}

}  // namespace

ReadCacheFindings probe_read_cache(ProbeTarget& t, const DriveStepOptions& o) {
  Session s(t, o, 1);
  ReadCacheFindings r;
  r.request_sectors = s.req;
  if (t.sectors() < 64u * s.req) {
    r.why = "the device is too small to probe its buffer";
    return r;
  }
  calibrate(s, r);
  r.measured = true;
  if (!r.read_cache) return r;
  r.read_ahead_sectors = read_ahead(s, r, false);
  if (o.tick) o.tick(0.3);
  r.read_ahead_sequential_sectors = read_ahead(s, r, true);
  if (o.tick) o.tick(0.6);
  count_segments(s, r);
  if (o.tick) o.tick(1.0);
  return r;
}

}  // namespace disksched::extract
