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

// Places far from each other and from LBA 0 (the extraction's reference), so nothing a
// trial leaves in the buffer serves another.
class FreshPlaces {
 public:
  explicit FreshPlaces(std::uint64_t sectors) : n_(sectors) {}
  std::uint64_t next() { return std::min(n_ - 2, 1 + (++k_ * 7919 * 1031) % (n_ - 2)); }

 private:
  std::uint64_t n_, k_ = 0;
};

// Is sector s in the buffer? Read it, then the sector behind it at once. From the
// platter the second has just gone by and comes round a revolution less a sector later,
// so the pair takes at least that from the first read's issue, whatever the host adds
// (its delays only lengthen it); from the buffer both cost a hit's time. Read-ahead
// holds s - 1 wherever it holds s. A fast pair proves s held; a slow one can be a hit
// seen late (30 % of completions 0.6 ms late on average against half a turn of 2 ms on
// a 15k drive), so "not held" takes kPairTrials slow pairs. A single re-read cannot say
// as much: a miss of it costs anything from a hit's time to a revolution.
constexpr int kPairTrials = 3;

struct PairTest {
  ProbeTarget& t;
  Millis behind_ms;  // a revolution less a sector

  bool fast(std::uint64_t s) const {
    const ProbeResult a = t.read(s, 1);
    return t.read(s - 1, 1).complete_ms - a.issue_ms < 0.5 * behind_ms;
  }
  // After a read of a fresh place and a few turns idle, is the sector k past it held?
  bool ahead_held(FreshPlaces& fresh, std::uint32_t k) const {
    for (int trial = 0; trial < kPairTrials; ++trial) {
      const std::uint64_t x = fresh.next();
      if (x + k >= t.sectors()) return false;
      const ProbeResult a = t.read(x, 1);
      t.wait_until(a.complete_ms + 8 * behind_ms);
      if (fast(x + k)) return true;
    }
    return false;
  }
};

// Segments: how many reads of other places until a read's sector is pushed out. Held is
// proved by one hit; out is believed after kPairTrials trials miss (a count one short
// lets every later probe hit the segment it forgot).
unsigned count_segments(ProbeTarget& t, const CacheFindings& f, FreshPlaces& fresh, const PairTest& pairs) {
  auto misses_after = [&](unsigned others) {
    const std::uint64_t x = fresh.next();
    const ProbeResult a = t.read(x, 1);
    if (f.read_ahead_sectors > 0) {
      // Let read-ahead carry the segment past x + 2, then ask by a pair. Not much
      // further: a segment no larger than the read-ahead is a ring that lets x go once
      // it is full (the drives of today's 2 MiB, read ahead in two turns on a 8 TB drive).
      t.wait_until(a.complete_ms + 0.25 * f.behind_ms);
      for (unsigned j = 0; j < others; ++j) t.read(fresh.next(), 1);
      return !pairs.fast(x + 2);
    }
    // Without read-ahead a pair's first read would take a segment itself: a plain
    // re-read, whose miss costs more than a quarter turn but for bad luck.
    for (unsigned j = 0; j < others; ++j) t.read(fresh.next(), 1);
    const ProbeResult r = t.read(x, 1);
    return r.complete_ms - r.issue_ms >= kCachedBelow * f.behind_ms;
  };
  auto evicted_by = [&](unsigned others) {
    for (int trial = 0; trial < kPairTrials; ++trial)
      if (!misses_after(others)) return false;
    return true;
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
  return out_after;
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
  FreshPlaces places(n);
  auto fresh = [&] { return places.next(); };
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
  // From the platter a re-read waits a whole revolution less what the host took to see
  // the first read, so re-reads that come back fast are hits, however late the others
  // (three of five hits seen a millisecond late once hid a 15k drive's read cache from
  // the median): the second fastest decides.
  std::sort(reread.begin(), reread.end());
  f.read_cache = reread[1] < kCachedBelow * f.behind_ms;
  const PairTest pairs{t, f.behind_ms};
  // The half-turn test above is kept for what it says of a hit's time; whether the
  // buffer reads ahead is decided by pairs, which a late host cannot fool into a miss.
  f.read_ahead = pairs.ahead_held(places, 2) || f.ahead_ms < kAheadBelow * f.behind_ms;
  if (f.read_ahead) {
    // How far: after a few turns, is the sector k past the read in the buffer?
    for (std::uint32_t k = 2; k <= 4096 && pairs.ahead_held(places, k); k *= 2) f.read_ahead_sectors = k;
  }
  if (f.read_cache) f.evicting_reads = count_segments(t, f, places, pairs);
  return f;
}

}  // namespace disksched::extract
