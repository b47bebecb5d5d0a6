// The data of the drive's volatile write cache: acknowledged writes that are not on the
// media yet, in whole sectors, over the backing store (the media). The timing model
// (VirtualDevice's write cache) says which writes are buffered and when each extent is
// destaged or lost; this keeps the bytes to match, so the backing store always holds
// exactly what is on the emulated media, and reads see the newest data.
//
// Not thread-safe: called in device order (under RealTimeDevice's turn).
#pragma once

#include <cstdint>
#include <map>
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

 private:
  void destage_touching(std::uint32_t count, std::uint64_t offset);

  Store& media_;
  std::uint32_t sb_;
  std::map<std::uint64_t, std::vector<char>> sectors_;  // sector -> its buffered bytes
};

}  // namespace disksched::diskemu
