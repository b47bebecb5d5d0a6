#include "emulator/device/write_cache.hpp"

#include <algorithm>

namespace disksched {

void WriteCache::remove(const Extent& e) {
  std::vector<Dirty> kept;
  kept.reserve(entries_.size() + 1);
  for (const Dirty& d : entries_) {
    const Extent& x = d.extent;
    if (x.end() <= e.lba || e.end() <= x.lba) {
      kept.push_back(d);
      continue;
    }
    // Keep what lies before and after `e`, in the same arrival place.
    if (x.lba < e.lba) kept.push_back({{x.lba, e.lba - x.lba}, d.seq, d.on_media_ms, d.added_ms});
    if (e.end() < x.end()) kept.push_back({{e.end(), x.end() - e.end()}, d.seq, d.on_media_ms, d.added_ms});
    dirty_ -= std::min(x.end(), e.end()) - std::max(x.lba, e.lba);
  }
  entries_ = std::move(kept);
}

void WriteCache::add(const Extent& e, Millis at, Millis on_media_ms) {
  if (e.sectors == 0) return;
  remove(e);
  entries_.push_back({e, next_seq_++, on_media_ms, at});
  dirty_ += e.sectors;
}

Millis WriteCache::first_added() const {
  Millis t = kUnscheduled;
  for (const Dirty& d : entries_) t = std::min(t, d.added_ms);
  return t;
}

Extent WriteCache::take(std::size_t i) {
  const Extent e = entries_[i].extent;
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  dirty_ -= e.sectors;
  return e;
}

bool WriteCache::covers(const Extent& e) const {
  std::uint64_t n = 0;
  for (const Dirty& d : entries_) {
    const std::uint64_t lo = std::max(d.extent.lba, e.lba), hi = std::min(d.extent.end(), e.end());
    if (lo < hi) n += hi - lo;
  }
  return e.sectors > 0 && n == e.sectors;  // extents never overlap, so the sum is exact
}

std::vector<WriteCache::Dirty> WriteCache::retire(Millis t) {
  std::vector<Dirty> done;
  // Served on every request of a drive with write-behind: nothing to do costs no allocation.
  if (std::none_of(entries_.begin(), entries_.end(), [&](const Dirty& d) { return d.on_media_ms <= t; }))
    return done;
  std::erase_if(entries_, [&](const Dirty& d) {
    if (d.on_media_ms > t) return false;
    done.push_back(d);
    dirty_ -= d.extent.sectors;
    return true;
  });
  std::stable_sort(done.begin(), done.end(),
                   [](const Dirty& a, const Dirty& b) { return a.on_media_ms < b.on_media_ms; });
  return done;
}

}  // namespace disksched
