// The write-cache step (drive_steps.hpp), inside the range writes may touch.
//
// Cached: scattered writes without FUA complete far faster than the same with FUA.
// Size: back-to-back scattered writes without FUA after a FLUSH are acknowledged at bus
// speed until the buffer reaches its high-water mark; from there they wait for
// destages. The first of a run of slow ones counts the writes the buffer took;
// the high-water mark's share is not visible from outside (assumed 0.75, the model's
// default). Destage: a FLUSH after N scattered writes costs what writing them back
// costs; per write, against a FUA write's time, it says whether the drive reorders
// them (shortest positioning first) or keeps their order. A FLUSH after an idle pause
// that costs no more than an empty one says the drive destages when idle.
#include <algorithm>

#include <fmt/format.h>

#include "tools/extract/drive_probe_util.hpp"

namespace disksched::extract {
namespace {

using drive::latency;
using drive::median_of;
using drive::Session;

struct Range {
  std::uint64_t first, last;
};

// N scattered writes without FUA, then a FLUSH: the FLUSH's time (a pause first, if any).
Millis flush_after(Session& s, DriveTarget& d, Range w, int n, Millis pause = 0.0) {
  for (int i = 0; i < n; ++i) s.t.write_buffered(s.place(w.first, w.last, s.req), s.req);
  if (pause > 0) s.idle(pause);
  return latency(d.flush());
}

Millis median_flush(Session& s, DriveTarget& d, Range w, int n, int reps) {
  std::vector<Millis> v;
  for (int i = 0; i < reps; ++i) v.push_back(flush_after(s, d, w, n));
  return median_of(v);
}

// Back-to-back scattered writes until the latency jumps: 3 of 8 slow (past the
// high-water mark every write or every other waits for a destage; below it none does).
// The drive destages in the background meanwhile: the burst's time over a FUA write's
// counts those that left (from few dirty writes a destage costs about a random write).
void find_jump(Session& s, DriveTarget& d, Range w, WriteCacheFindings& f) {
  const Millis slow = std::max(3.0 * f.buffered_ms, f.buffered_ms + 0.3);
  const std::uint64_t room = (w.last + 1 - w.first) / s.req;
  const std::uint64_t max_writes = std::min<std::uint64_t>(room, 1u << 18);
  d.flush();
  std::vector<bool> was_slow;
  std::vector<Millis> issued;
  const Millis begin = s.t.now_ms();
  Millis at_jump = 0;
  for (std::uint64_t i = 0; i < max_writes && !s.over(); ++i) {
    const auto r = s.t.write_buffered(s.place(w.first, w.last, s.req), s.req);
    was_slow.push_back(latency(*r) > slow);
    issued.push_back(r->issue_ms);
    if (was_slow.size() < 8) continue;
    const auto j = static_cast<std::ptrdiff_t>(was_slow.size() - 8);
    if (std::count(was_slow.begin() + j, was_slow.end(), true) >= 3) {
      std::size_t first = static_cast<std::size_t>(j);
      while (!was_slow[first]) ++first;
      f.writes_before_jump = first;
      f.jump_seen = true;
      at_jump = issued[first];
      break;
    }
  }
  if (!f.jump_seen) f.writes_before_jump = was_slow.size();
  // The drive writes back while the burst runs, at first from few dirty writes, each
  // about a FUA write's time; and the jump comes with the write past the mark.
  const double destaged = f.jump_seen ? std::min((at_jump - begin) / f.fua_ms, 0.5 * f.writes_before_jump) : 0.0;
  d.flush();
  f.destaged_in_burst = static_cast<std::uint64_t>(destaged);
  const double in = static_cast<double>(f.writes_before_jump) - destaged - (f.jump_seen ? 1.0 : 0.0);
  // A buffer that takes one write before the next waits (a write segment) holds one.
  f.buffer_bytes = static_cast<std::uint64_t>(std::max(1.0, in) * s.req *
                                              s.t.sector_bytes() / f.high_water);
}

}  // namespace

WriteCacheFindings probe_write_cache(ProbeTarget& t, DriveTarget* d, const DriveStepOptions& o) {
  Session s(t, o, 2);
  WriteCacheFindings f;
  f.write_sectors = s.req;
  if (!o.writable) {
    f.why = "writes not allowed: give a range with --allow-writes to measure the write cache";
    return f;
  }
  const Range w{o.writable->first, o.writable->second};
  if (w.last < w.first || w.last + 1 - w.first < 64u * s.req) {
    f.why = "the writable range is too small (at least 64 scattered 4 KiB writes)";
    return f;
  }
  if (!d || !t.write_buffered(s.place(w.first, w.last, s.req), s.req)) {  // d first: no probe without
    f.why = "this target cannot issue a write without FUA and a FLUSH";
    return f;
  }
  d->flush();
  std::vector<Millis> fua, buffered;
  for (int i = 0; i < 10; ++i) {
    fua.push_back(latency(t.write(s.place(w.first, w.last, s.req), s.req)));
    buffered.push_back(latency(*t.write_buffered(s.place(w.first, w.last, s.req), s.req)));
    d->flush();
  }
  f.fua_ms = median_of(fua);
  f.buffered_ms = median_of(buffered);
  f.cached = f.buffered_ms < 0.3 * f.fua_ms;
  f.measured = true;
  std::vector<Millis> empty;
  for (int i = 0; i < 3; ++i) empty.push_back(latency(d->flush()));
  f.flush_empty_ms = median_of(empty);
  if (o.tick) o.tick(0.1);
  if (f.cached) find_jump(s, *d, w, f);
  if (o.tick) o.tick(0.5);
  f.flush8_ms = median_flush(s, *d, w, 8, 5);
  f.flush64_ms = median_flush(s, *d, w, 64, 3);
  if (o.tick) o.tick(0.9);
  if (f.cached) {
    f.destage_ratio = std::max(0.0, f.flush64_ms - f.flush_empty_ms) / 64.0 / f.fua_ms;
    f.reorders_destage = f.destage_ratio < 0.8;
    // Idle long enough to write 8 back twice over, then see what the FLUSH finds.
    const Millis idle_flush = flush_after(s, *d, w, 8, 16.0 * f.fua_ms + o.idle_wait_ms);
    f.destages_when_idle = idle_flush < f.flush_empty_ms + 0.5 * std::max(0.0, f.flush8_ms - f.flush_empty_ms);
    f.idle_measured = true;
  }
  if (o.tick) o.tick(1.0);
  return f;
}

}  // namespace disksched::extract
