// A probe target in front of a drive whose buffer would answer probes: every read it
// passes on reaches the platter (DIXtrac's answer when the cache cannot be turned off).
//
// It keeps what the drive may hold: the last `segments` reads, each with the read-ahead
// behind it. Before a read of a sector that may be held, it reads as many other places
// (near, but out of any window) as push a sector out (found by check_cache), so the read
// misses; its timing is then a media access. Those reads cost time but no accuracy: a completion's phase is the
// sector's, whatever came before.
//
// A reach probe is a pair (a read of src, then dst a chosen slack before its sector comes
// round): nothing may come between the two, so the pair is announced and the buffer is
// cleared of both before src. What the pair cannot be cleared of is src's own read-ahead:
// a dst a little past src would be served by it (an extraction turns such a pair round,
// see ahead_of). Writes are not cached reads and pass straight through.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "tools/extract/cache_check.hpp"
#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

class CacheDefeat final : public ProbeTarget {
 public:
  CacheDefeat(ProbeTarget& inner, const CacheFindings& found);
  // The target behind the defeat (the drive steps time the buffer itself). What they
  // leave in the buffer is not known here: the next read is preceded by a full sweep.
  ProbeTarget& inner() {
    sweep_ = true;
    return inner_;
  }

  std::string describe() const override { return inner_.describe(); }
  std::uint32_t sector_bytes() const override { return inner_.sector_bytes(); }
  std::uint64_t sectors() const override { return inner_.sectors(); }
  Millis now_ms() override { return inner_.now_ms(); }
  void wait_until(Millis t_ms) override { inner_.wait_until(t_ms); }
  ProbeResult read(std::uint64_t lba, std::uint32_t count) override;
  ProbeResult write(std::uint64_t lba, std::uint32_t count) override;
  std::optional<ProbeResult> write_buffered(std::uint64_t lba, std::uint32_t count) override {
    return inner_.write_buffered(lba, count);
  }
  bool set_spin_wait(bool on) override { return inner_.set_spin_wait(on); }
  std::optional<Millis> null_round_trip_ms() override { return inner_.null_round_trip_ms(); }
  void pair(std::uint64_t src, std::uint64_t dst) override;
  bool prefers_descending_reads() const override { return window_ > 0; }

  // Would a read of `dst` right after one of `src` be served by src's read-ahead?
  bool ahead_of(std::uint64_t src, std::uint64_t dst) const {
    return dst >= src && dst <= src + window_;
  }
  // Reads added to push sectors out of the buffer.
  std::uint64_t evictions() const { return evictions_; }

 private:
  struct Held {
    std::uint64_t first, end;  // [first, end): read, and what read-ahead may add
  };
  bool held(std::uint64_t lba, std::uint32_t count) const;
  // Evicting reads that push out every segment that may hold [lba, lba + count): every
  // read through here is a miss, which takes the least recently used segment, so the
  // one of the read i reads back goes after segments - i more (0: nothing holds it).
  unsigned reads_to_push_out(std::uint64_t lba, std::uint32_t count) const;
  void note_read(std::uint64_t lba, std::uint32_t count);
  // Reads `count` other places (all of segments_ when the buffer's state is not known);
  // then nothing holds the sectors `next` reads.
  void evict(std::uint64_t next, unsigned count);
  // One evicting read at the first place ahead of the last read that no window holds:
  // where every learned place is held (by the evicting reads before), a chain of them
  // goes on in fresh space instead of at places anywhere.
  bool evict_past_held(std::uint64_t next);
  // One evicting read a learned distance from the last read (nothing if none fits).
  bool evict_near(std::uint64_t next);
  // Candidate i: kStrides places ahead of the last read, then kStrides behind it.
  std::optional<std::uint64_t> place(unsigned i) const;
  bool fits(std::uint64_t x, std::uint64_t next) const;
  ProbeResult read_evicting(std::uint64_t x);
  void note_head(std::uint64_t lba) { head_ = lba; }

  ProbeTarget& inner_;
  std::uint64_t window_;     // sectors past a read that read-ahead may hold
  unsigned segments_;        // reads that push a sector out
  std::deque<Held> held_;    // newest first
  // The newest known_ entries of held_ were read with nothing else using the buffer
  // since (a write, or the drive steps' reads through inner(), may have): their places
  // in the LRU order are exact, older ones are counted as the newest.
  unsigned known_ = 0;
  // The buffer holds what this never saw (the cache check's reads at the start, the
  // drive steps'): the next read first reads segments_ other places.
  bool sweep_ = true;
  std::optional<std::uint64_t> pair_dst_;  // the dst of the pair under way
  std::uint64_t evictions_ = 0;
  // Where evicting reads go. Any place out of every window evicts as well as any other;
  // what differs is the wait for it to come round, up to a revolution each. Places a
  // window and kStrides strides on from the last read, ahead and behind (a cylinder
  // switch's seek there and back can cost the revolution), are candidates, and each one's
  // time (issue to completion, averaged) is learned from the evicting reads themselves:
  // the quickest is taken, and every kExploreEvery-th read tries the one tried longest
  // ago (zones change the track size, and with it which stride comes round soonest).
  // Then a re-read's evictions and the re-read fit in about one revolution, not two.
  static constexpr unsigned kStrides = 32;
  static constexpr unsigned kExploreEvery = 16;
  static constexpr double kForget = 0.3;  // weight of the newest time in a stride's average
  std::uint64_t stride_;                  // sectors between candidates
  std::uint64_t head_ = 0;                // the last sector read or written
  struct StrideTime {
    double mean_ms = 0.0;
    std::uint64_t tried = 0;  // eviction count when last tried (0: never)
  };
  std::vector<StrideTime> strides_ = std::vector<StrideTime>(2 * kStrides);
};

}  // namespace disksched::extract
