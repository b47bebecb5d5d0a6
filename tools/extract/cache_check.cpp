#include "tools/extract/cache_check.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tools/extract/stats.hpp"

namespace disksched::extract {
namespace {

// A buffered answer costs command overhead and bus time; a platter answer to these
// patterns costs most of a revolution. A quarter tells them apart on any drive.
constexpr double kCachedBelow = 0.25;
// The read-ahead test asks for the sector two past a read half a revolution after it:
// from the platter that sector has passed and comes round half a revolution later at
// the least, so a miss costs half the sector-behind time or more. A hit costs what any
// hit does, and more while read-ahead keeps the mechanism busy (1.4-3.1 ms on the HP
// C2247A behind a host that completes late, where a quarter of a revolution is 2.74 ms
// and took those hits for misses): 0.4 splits the two.
constexpr double kAheadBelow = 0.4;
constexpr int kTrials = 5;

Millis since(const ProbeResult& before, const ProbeResult& r) {
  return r.complete_ms - before.complete_ms;
}

}  // namespace

std::string CacheFindings::describe() const {
  if (!any())
    return fmt::format("no drive cache answered probes (re-read {:.2f} ms, sector behind {:.2f} ms)",
                       reread_ms, behind_ms);
  std::string s = "drive cache found:";
  if (read_cache)
    s += fmt::format(" read cache (a re-read takes {:.2f} ms, the sector behind {:.2f} ms);", reread_ms,
                     behind_ms);
  if (read_ahead)
    s += fmt::format(" read-ahead (a sector just past takes {:.2f} ms; at least {} sectors ahead held);",
                     ahead_ms, read_ahead_sectors);
  if (read_cache)
    s += evicting_reads > 0 ? fmt::format(" {} reads of other places push a sector out;", evicting_reads)
                            : fmt::format(" {} reads of other places did not push a sector out;",
                                          kMostEvictingReads);
  s += " " + describe_write_behind() + ";";
  s.pop_back();
  return s;
}

std::string CacheFindings::describe_write_behind() const {
  if (!write_behind)
    return "write-behind not probed (" + write_behind_unprobed +
           "); write probes are FUA (O_DSYNC), which a drive must not acknowledge from its buffer";
  return fmt::format("{} (a write without FUA completes {:.2f} ms after a read, with FUA {:.2f} ms){}",
                     *write_behind ? "write-behind" : "no write-behind", buffered_write_ms, fua_write_ms,
                     *write_behind ? "; write probes are FUA, so it answers none of them" : "");
}

void check_write_behind(ProbeTarget& t, std::uint64_t x, std::uint64_t y, CacheFindings& f) {
  std::vector<double> fua, buffered;
  for (int i = 0; i < kTrials; ++i) {
    const ProbeResult a = t.read(x, 1);
    fua.push_back(since(a, t.write(y, 1)));
    const ProbeResult b = t.read(x, 1);
    const std::optional<ProbeResult> w = t.write_buffered(y, 1);
    if (!w) {
      f.write_behind_unprobed = "the target cannot issue a write without FUA";
      return;
    }
    buffered.push_back(since(b, *w));
  }
  f.fua_write_ms = median(fua);
  f.buffered_write_ms = median(buffered);
  f.write_behind = f.buffered_write_ms < kCachedBelow * f.fua_write_ms;
}

CacheFindings check_cache(ProbeTarget& t) {
  CacheFindings f;
  const std::uint64_t n = t.sectors();
  // Fresh places, far from each other and from LBA 0 (the extraction's reference), so
  // nothing a trial leaves in the buffer serves another.
  std::uint64_t next_place = 0;
  auto fresh = [&] {
    const std::uint64_t k = ++next_place;
    return std::min(n - 2, 1 + (k * 7919 * 1031) % (n - 2));
  };
  std::vector<double> reread, behind, ahead;
  for (int i = 0; i < kTrials; ++i) {
    const std::uint64_t x = fresh();
    const ProbeResult a = t.read(x, 1);
    reread.push_back(since(a, t.read(x, 1)));
    const std::uint64_t y = fresh();
    const ProbeResult b = t.read(y, 1);
    behind.push_back(since(b, t.read(y - 1, 1)));
  }
  f.reread_ms = median(reread);
  f.behind_ms = median(behind);
  const Millis half_turn = f.behind_ms / 2;
  for (int i = 0; i < kTrials; ++i) {
    const std::uint64_t x = fresh();
    const ProbeResult a = t.read(x, 1);
    t.wait_until(a.complete_ms + half_turn);
    ahead.push_back(since(a, t.read(x + 2, 1)) - half_turn);
  }
  f.ahead_ms = median(ahead);
  f.read_cache = f.reread_ms < kCachedBelow * f.behind_ms;
  f.read_ahead = f.ahead_ms < kAheadBelow * f.behind_ms;
  if (f.read_ahead) {
    // How far: after a few turns, is the sector k past the read in the buffer? A hit
    // costs about what a re-read does; a miss that happens to cost as little is rare,
    // and twice in a row rarer still.
    const Millis cached = std::min(kCachedBelow * f.behind_ms, 2.0 * std::max(f.reread_ms, f.ahead_ms));
    auto held = [&](std::uint32_t k) {
      for (int trial = 0; trial < 2; ++trial) {
        const std::uint64_t x = fresh();
        if (x + k >= n) return false;
        const ProbeResult a = t.read(x, 1);
        t.wait_until(a.complete_ms + 8 * f.behind_ms);
        const ProbeResult b = t.read(x + k, 1);
        if (b.complete_ms - b.issue_ms >= cached) return false;
      }
      return true;
    };
    for (std::uint32_t k = 2; k <= 4096 && held(k); k *= 2) f.read_ahead_sectors = k;
  }
  if (f.read_cache) {
    // Segments: how many reads of other places until a re-read misses. A hit is proof
    // that the sector was held; a miss is believed when two more trials miss too: a host
    // that delays a completion by a millisecond or two makes a hit look like a miss (twice
    // in a row once in 176 virtual runs of the C2247A behind a late host), and a count one
    // short lets every later probe hit the segment it forgot.
    auto misses_after = [&](unsigned others) {
      const std::uint64_t x = fresh();
      t.read(x, 1);
      for (unsigned j = 0; j < others; ++j) t.read(fresh(), 1);
      const ProbeResult r = t.read(x, 1);
      return r.complete_ms - r.issue_ms >= kCachedBelow * f.behind_ms;
    };
    auto evicted_by = [&](unsigned others) {
      return misses_after(others) && misses_after(others) && misses_after(others);
    };
    // One count after another up to 32 (a buffer of a few segments, found exactly); past
    // that doubling, then halving the gap (LRU: a sector once pushed out stays out after
    // more reads): a buffer of 128 segments takes some 2,000 reads, not 25,000.
    unsigned held_after = 0, out_after = 0;
    for (unsigned others = 1; others <= kMostEvictingReads && out_after == 0;
         others = others < 32 ? others + 1 : 2 * others) {
      if (evicted_by(others))
        out_after = others;
      else
        held_after = others;
    }
    while (out_after > 0 && out_after - held_after > 1) {
      const unsigned mid = held_after + (out_after - held_after) / 2;
      (evicted_by(mid) ? out_after : held_after) = mid;
    }
    f.evicting_reads = out_after;
  }
  return f;
}

}  // namespace disksched::extract
