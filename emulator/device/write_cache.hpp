// A drive's volatile write cache as a set of dirty extents: what was acknowledged to the
// host and is not yet on the media. Bookkeeping only; VirtualDevice decides when they go
// to the media (emulator/device/virtual_device.hpp).
//
// Every dirty sector belongs to exactly one extent: a newer write over dirty sectors
// takes them from the older extents (which shrink or split), so destaging an extent in
// any order writes the newest data, and a power cut loses exactly the extents left.
#pragma once

#include <cstdint>
#include <vector>

namespace disksched {

// Sectors [lba, lba + sectors).
struct Extent {
  std::uint64_t lba = 0;
  std::uint64_t sectors = 0;
  std::uint64_t end() const { return lba + sectors; }
  bool operator==(const Extent&) const = default;
};

struct WriteCacheOptions {
  std::uint64_t bytes = 0;   // 0: write-through (no cache)
  double high_water = 0.75;  // above this fraction full, destaging goes before commands
};

class WriteCache {
 public:
  struct Dirty {
    Extent extent;
    std::uint64_t seq = 0;  // arrival order: the tie-break of the destage choice
  };

  WriteCache(std::uint64_t capacity_sectors, std::uint64_t high_water_sectors)
      : capacity_(capacity_sectors), high_water_(high_water_sectors) {}

  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t high_water() const { return high_water_; }
  std::uint64_t dirty_sectors() const { return dirty_; }
  bool empty() const { return entries_.empty(); }
  bool fits(std::uint64_t sectors) const { return dirty_ + sectors <= capacity_; }
  const std::vector<Dirty>& entries() const { return entries_; }

  // A new write of `e` is in the cache (it takes its sectors from older extents).
  void add(const Extent& e);
  // The sectors of `e` are no longer dirty (a write-through write, a trim, a zero).
  void remove(const Extent& e);
  // Takes entry `i` out (destaged or lost).
  Extent take(std::size_t i);
  // Do the dirty extents cover all of `e`?
  bool covers(const Extent& e) const;

 private:
  std::uint64_t capacity_, high_water_;
  std::uint64_t dirty_ = 0;
  std::uint64_t next_seq_ = 0;
  std::vector<Dirty> entries_;
};

}  // namespace disksched
