#include "tools/extract/cache_defeat.hpp"

#include <algorithm>

namespace disksched::extract {

CacheDefeat::CacheDefeat(ProbeTarget& inner, const CacheFindings& found)
    : inner_(inner),
      // Read-ahead was seen to reach at least read_ahead_sectors: assume up to twice
      // that (the check doubles), and a track's worth when it was not measured.
      window_(found.read_ahead ? std::max<std::uint64_t>(2ull * found.read_ahead_sectors, 256) : 0),
      segments_(found.evicting_reads > 0 ? found.evicting_reads : 1) {}

bool CacheDefeat::held(std::uint64_t lba, std::uint32_t count) const {
  const std::uint64_t end = lba + count;
  return std::any_of(held_.begin(), held_.end(),
                     [&](const Held& h) { return lba < h.end && h.first < end; });
}

void CacheDefeat::note_read(std::uint64_t lba, std::uint32_t count) {
  held_.push_front({lba, std::min(inner_.sectors(), lba + count + window_)});
  while (held_.size() > segments_) held_.pop_back();
}

void CacheDefeat::evict(std::uint64_t next) {
  // Places a window or more from the read that follows, ahead of it and then behind:
  // none held, none whose read-ahead would hold the pair's dst. Near it, so the moves
  // there and back are short (a head switch or a few cylinders, not a stroke).
  const std::uint64_t n = inner_.sectors();
  const std::uint64_t step = window_ + 1;
  unsigned done = 0;
  for (std::uint64_t j = 1; done < segments_ && j < 4 * segments_ + 8; ++j) {
    for (const bool ahead : {true, false}) {
      if (done == segments_) break;
      const std::uint64_t off = j * step;
      if (ahead ? next + off >= n : next < off) continue;
      const std::uint64_t x = ahead ? next + off : next - off;
      if (held(x, 1) || (pair_dst_ && *pair_dst_ >= x && *pair_dst_ <= x + window_)) continue;
      inner_.read(x, 1);
      note_read(x, 1);
      ++evictions_;
      ++done;
    }
  }
  // A device too small for windows apart: far places, as many as it takes.
  for (std::uint64_t k = 1; done < segments_ && k < 64; ++k) {
    const std::uint64_t x = (k * 104729ull * 7919ull + next) % n;
    if (held(x, 1)) continue;
    inner_.read(x, 1);
    note_read(x, 1);
    ++evictions_;
    ++done;
  }
}

void CacheDefeat::pair(std::uint64_t src, std::uint64_t dst) {
  pair_dst_ = dst;
  if (held(src, 1) || held(dst, 1)) evict(src);
  // After the eviction nothing holds dst; src's read comes next and must not evict again.
}

ProbeResult CacheDefeat::read(std::uint64_t lba, std::uint32_t count) {
  const bool second_of_pair = pair_dst_ && *pair_dst_ == lba && !held_.empty() && held_.front().first != lba;
  if (!second_of_pair && held(lba, count)) evict(lba);
  if (second_of_pair) pair_dst_.reset();
  const ProbeResult r = inner_.read(lba, count);
  note_read(lba, count);
  return r;
}

ProbeResult CacheDefeat::write(std::uint64_t lba, std::uint32_t count) {
  if (pair_dst_ && *pair_dst_ == lba) pair_dst_.reset();
  return inner_.write(lba, count);
}

}  // namespace disksched::extract
