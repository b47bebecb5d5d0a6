#include "emulator/diskemu/write_cache_store.hpp"

#include <algorithm>
#include <cstring>

namespace disksched::diskemu {

void WriteCacheStore::read(void* buf, std::uint32_t count, std::uint64_t offset) {
  media_.read(buf, count, offset);
  if (count == 0 || sectors_.empty()) return;
  auto* out = static_cast<char*>(buf);
  const std::uint64_t end = offset + count;
  for (auto it = sectors_.lower_bound(offset / sb_); it != sectors_.end() && it->first * sb_ < end; ++it) {
    const std::uint64_t lo = std::max(offset, it->first * sb_);
    const std::uint64_t hi = std::min(end, (it->first + 1) * sb_);
    std::memcpy(out + (lo - offset), it->second.data() + (lo - it->first * sb_), hi - lo);
  }
}

void WriteCacheStore::write_buffered(const void* buf, std::uint32_t count, std::uint64_t offset) {
  const auto* in = static_cast<const char*>(buf);
  const std::uint64_t end = offset + count;
  for (std::uint64_t s = offset / sb_; s * sb_ < end; ++s) {
    std::vector<char> data(sb_);
    const std::uint64_t lo = std::max(offset, s * sb_), hi = std::min(end, (s + 1) * sb_);
    if (hi - lo < sb_) read(data.data(), sb_, s * sb_);  // a partial sector: merge
    std::memcpy(data.data() + (lo - s * sb_), in + (lo - offset), hi - lo);
    sectors_[s] = std::move(data);
  }
}

void WriteCacheStore::destage_touching(std::uint32_t count, std::uint64_t offset) {
  if (count == 0) return;
  const std::uint64_t first = offset / sb_, last = (offset + count - 1) / sb_;
  destage({first, last - first + 1});
}

void WriteCacheStore::write_through(const void* buf, std::uint32_t count, std::uint64_t offset) {
  destage_touching(count, offset);
  media_.write(buf, count, offset);
}

void WriteCacheStore::zero_through(std::uint32_t count, std::uint64_t offset) {
  destage_touching(count, offset);
  media_.zero(count, offset);
}

void WriteCacheStore::destage(const Extent& e) {
  auto it = sectors_.lower_bound(e.lba);
  while (it != sectors_.end() && it->first < e.end()) {
    media_.write(it->second.data(), sb_, it->first * sb_);
    it = sectors_.erase(it);
  }
}

void WriteCacheStore::drop(const Extent& e) {
  sectors_.erase(sectors_.lower_bound(e.lba), sectors_.lower_bound(e.end()));
}

}  // namespace disksched::diskemu
