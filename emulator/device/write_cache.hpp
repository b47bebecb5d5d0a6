// A drive's volatile write buffer as a set of dirty extents: what was acknowledged to the
// host and is not yet on the media. It is the one place that holds such writes, whichever
// policy destages them (DestagePolicy below): FLUSH, FUA and power cuts are answered from
// it, and diskemu's data layer (write_cache_store) holds exactly its sectors.
// Bookkeeping only; the policies decide when extents go to the media
// (emulator/device/virtual_device.hpp, predictor/drive_cache.hpp).
//
// Every dirty sector belongs to exactly one extent: a newer write over dirty sectors
// takes them from the older extents (which shrink or split), so destaging an extent in
// any order writes the newest data, and a power cut loses exactly the extents left.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched {

// Sectors [lba, lba + sectors).
struct Extent {
  std::uint64_t lba = 0;
  std::uint64_t sectors = 0;
  std::uint64_t end() const { return lba + sectors; }
  bool operator==(const Extent&) const = default;
};

// Who decides when a dirty extent goes to the media.
enum class DestagePolicy {
  // diskemu's write-cache= (issue 13): shortest positioning first when the mechanism is
  // idle and when above the high-water mark; a full buffer makes writes wait.
  WhenIdle,
  // The profile's own write-behind (its "cache" block, DiskSim's rules): the drive cache
  // schedules each write's media run when it takes the write, so every extent comes in
  // with the time it will be on the media.
  ProfileWriteBehind,
};

struct WriteCacheOptions {
  std::uint64_t bytes = 0;   // 0: write-through (no cache)
  double high_water = 0.75;  // above this fraction full, destaging goes before commands
};

class WriteCache {
 public:
  static constexpr Millis kUnscheduled = std::numeric_limits<Millis>::infinity();
  struct Dirty {
    Extent extent;
    std::uint64_t seq = 0;  // arrival order: the tie-break of the destage choice
    // When its scheduled destage has it on the media (ProfileWriteBehind); kUnscheduled
    // until a WhenIdle destage takes it.
    Millis on_media_ms = kUnscheduled;
    Millis added_ms = 0.0;  // when its data was in the buffer: no destage starts earlier
  };

  WriteCache(std::uint64_t capacity_sectors, std::uint64_t high_water_sectors,
             DestagePolicy policy = DestagePolicy::WhenIdle)
      : capacity_(capacity_sectors), high_water_(high_water_sectors), policy_(policy) {}

  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t high_water() const { return high_water_; }
  std::uint64_t dirty_sectors() const { return dirty_; }
  bool empty() const { return entries_.empty(); }
  bool fits(std::uint64_t sectors) const { return dirty_ + sectors <= capacity_; }
  const std::vector<Dirty>& entries() const { return entries_; }
  DestagePolicy policy() const { return policy_; }

  // A new write of `e` is in the cache from `at` (it takes its sectors from older
  // extents); it reaches the media at `on_media_ms` if its destage is scheduled already.
  void add(const Extent& e, Millis at, Millis on_media_ms = kUnscheduled);
  // When the first of the dirty extents came in (infinity when empty).
  Millis first_added() const;
  // The sectors of `e` are no longer dirty (a write-through write, a trim, a zero).
  void remove(const Extent& e);
  // Takes entry `i` out (destaged or lost).
  Extent take(std::size_t i);
  // Do the dirty extents cover all of `e`?
  bool covers(const Extent& e) const;
  // Takes out the extents scheduled to be on the media by `t`, in the order they got there.
  std::vector<Dirty> retire(Millis t);

 private:
  std::uint64_t capacity_, high_water_;
  DestagePolicy policy_;
  std::uint64_t dirty_ = 0;
  std::uint64_t next_seq_ = 0;
  std::vector<Dirty> entries_;
};

}  // namespace disksched
