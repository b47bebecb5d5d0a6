#include "emulator/diskemu/write_cache_store.hpp"

#include <algorithm>
#include <cstring>
#include <random>

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
    if (holding_) {
      forget_order(s);
      order_.insert({next_write_, s});
      write_of_[s] = next_write_;
    }
  }
  ++next_write_;
  // Held past the buffer's size: the oldest write goes to the media, as a full buffer's would.
  while (holding_ && sectors_.size() > limit_) {
    const std::uint64_t oldest = order_.begin()->first;
    while (!order_.empty() && order_.begin()->first == oldest)
      write_out({order_.begin()->second, 1});
  }
}

void WriteCacheStore::destage_touching(std::uint32_t count, std::uint64_t offset) {
  if (count == 0) return;
  const std::uint64_t first = offset / sb_, last = (offset + count - 1) / sb_;
  write_out({first, last - first + 1});
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
  if (!holding_) write_out(e);
}

void WriteCacheStore::write_out(const Extent& e) {
  auto it = sectors_.lower_bound(e.lba);
  while (it != sectors_.end() && it->first < e.end()) {
    media_.write(it->second.data(), sb_, it->first * sb_);
    forget_order(it->first);
    it = sectors_.erase(it);
  }
}

void WriteCacheStore::drop(const Extent& e) {
  for (auto it = sectors_.lower_bound(e.lba); it != sectors_.end() && it->first < e.end();) {
    forget_order(it->first);
    it = sectors_.erase(it);
  }
}

void WriteCacheStore::forget_order(std::uint64_t sector) {
  if (const auto it = write_of_.find(sector); it != write_of_.end()) {
    order_.erase({it->second, sector});
    write_of_.erase(it);
  }
}

void WriteCacheStore::hold(std::uint64_t limit_sectors) {
  flush();  // what is buffered already has no order to hold it in
  holding_ = true;
  limit_ = std::max<std::uint64_t>(1, limit_sectors);
}

void WriteCacheStore::flush() {
  if (!sectors_.empty()) write_out({sectors_.begin()->first, sectors_.rbegin()->first + 1 - sectors_.begin()->first});
}

WriteCacheStore::Cut WriteCacheStore::cut(std::uint64_t seed) {
  // The buffered writes in write order, each with the sectors it still holds; then a
  // seeded shuffle and a seeded count: mt19937_64's output is fixed by the standard, so
  // the same seed over the same writes keeps the same ones.
  std::vector<std::vector<std::uint64_t>> writes;
  std::uint64_t current = 0;
  for (const auto& [write, sector] : order_) {
    if (writes.empty() || write != current) writes.emplace_back();
    current = write;
    writes.back().push_back(sector);
  }
  for (const auto& [sector, data] : sectors_)
    if (!write_of_.count(sector)) writes.push_back({sector});  // (only without hold())
  std::mt19937_64 rng(seed);
  for (std::size_t i = writes.size(); i > 1; --i) std::swap(writes[i - 1], writes[rng() % i]);
  const std::size_t kept = static_cast<std::size_t>(rng() % (writes.size() + 1));
  Cut c;
  for (std::size_t i = 0; i < writes.size(); ++i)
    for (const std::uint64_t sector : writes[i]) {
      if (i < kept) {
        write_out({sector, 1});
        ++c.written;
      } else {
        drop({sector, 1});
        ++c.lost;
      }
    }
  return c;
}

}  // namespace disksched::diskemu
