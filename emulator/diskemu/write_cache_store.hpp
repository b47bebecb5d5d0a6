// The data of the drive's volatile write cache: acknowledged writes that are not on the
// media yet, in whole sectors, over the backing store (the media). The timing model
// (VirtualDevice's write cache) says which writes are buffered and when each extent is
// destaged or lost; this keeps the bytes to match, so the backing store always holds
// exactly what is on the emulated media, and reads see the newest data (held for a
// seeded cut, see hold(), the media lags until a flush or the cut).
//
// Not thread-safe: called in device order (under RealTimeDevice's turn).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "emulator/device/write_cache.hpp"
#include "emulator/diskemu/store.hpp"

namespace disksched::diskemu {

class WriteCacheStore {
 public:
  WriteCacheStore(Store& media, std::uint32_t sector_bytes) : media_(media), sb_(sector_bytes) {}

  // The media's data with the buffered sectors over it.
  void read(void* buf, std::uint32_t count, std::uint64_t offset);
  // A write acknowledged from the buffer. A partial sector is merged with what reads now.
  void write_buffered(const void* buf, std::uint32_t count, std::uint64_t offset);
  // A write (or zero, or trim) that goes to the media: the buffered sectors it touches
  // are no longer dirty, so they go to the media first and the write lands over them.
  void write_through(const void* buf, std::uint32_t count, std::uint64_t offset);
  void zero_through(std::uint32_t count, std::uint64_t offset);
  // The timing model wrote `e` to the media, or lost it to a power cut.
  void destage(const Extent& e);
  void drop(const Extent& e);

  std::size_t buffered_sectors() const { return sectors_.size(); }

  // A seeded power cut that repeats exactly (power-cut-seed=): from now on the data
  // leave the buffer only at flush(), at cut(), when a write goes through over them, or
  // (the oldest write first) when more than `limit_sectors` are buffered; the timing
  // model's destages (which follow real-time arrivals) no longer move data. So what the
  // buffer holds at a cut is a function of the writes and flushes alone, in their order.
  void hold(std::uint64_t limit_sectors);
  // A FLUSH: every buffered sector to the media.
  void flush();
  // The power goes: a seeded part of the buffered writes (a seeded shuffle of them, then
  // a seeded count) reaches the media, the rest is lost; each sector goes with the
  // write that last wrote it, so no write is torn. Empties the buffer.
  struct Cut {
    std::uint64_t written = 0, lost = 0;  // sectors
  };
  Cut cut(std::uint64_t seed);

 private:
  void destage_touching(std::uint32_t count, std::uint64_t offset);
  void write_out(const Extent& e);
  void forget_order(std::uint64_t sector);

  Store& media_;
  std::uint32_t sb_;
  std::map<std::uint64_t, std::vector<char>> sectors_;  // sector -> its buffered bytes
  // hold(): which write (a sequence number, in write order) last wrote each sector.
  bool holding_ = false;
  std::uint64_t limit_ = 0, next_write_ = 0;
  std::set<std::pair<std::uint64_t, std::uint64_t>> order_;  // (write, sector)
  std::map<std::uint64_t, std::uint64_t> write_of_;          // sector -> write
};

}  // namespace disksched::diskemu
