#include "tools/extract/cache_defeat.hpp"

#include <algorithm>
#include <optional>

namespace disksched::extract {

CacheDefeat::CacheDefeat(ProbeTarget& inner, const CacheFindings& found)
    : inner_(inner),
      // Read-ahead was seen to reach at least read_ahead_sectors: assume up to twice
      // that (the check doubles), and 256 sectors when it was not seen but a read cache
      // was (a check that missed it, with a window of 0, sent every evicting read into
      // the segment it was to push out: no read ever reached the platter).
      window_(found.read_ahead ? std::max<std::uint64_t>(2ull * found.read_ahead_sectors, 256)
              : found.read_cache ? 256
                                 : 0),
      segments_(found.evicting_reads > 0 ? found.evicting_reads : 1),
      stride_(std::max<std::uint64_t>(1, window_ / kStrides)) {}

bool CacheDefeat::held(std::uint64_t lba, std::uint32_t count) const {
  const std::uint64_t end = lba + count;
  return std::any_of(held_.begin(), held_.end(),
                     [&](const Held& h) { return lba < h.end && h.first < end; });
}

unsigned CacheDefeat::reads_to_push_out(std::uint64_t lba, std::uint32_t count) const {
  const std::uint64_t end = lba + count;
  for (unsigned i = 0; i < held_.size(); ++i) {
    const Held& h = held_[i];
    if (lba < h.end && h.first < end) return segments_ - std::min(i, known_);
  }
  return 0;
}

void CacheDefeat::note_read(std::uint64_t lba, std::uint32_t count) {
  held_.push_front({lba, std::min(inner_.sectors(), lba + count + window_)});
  while (held_.size() > segments_) held_.pop_back();
  known_ = std::min(known_ + 1, segments_);
}

ProbeResult CacheDefeat::read_evicting(std::uint64_t x) {
  const ProbeResult r = inner_.read(x, 1);
  note_read(x, 1);
  note_head(x);
  ++evictions_;
  return r;
}

// A place an evicting read may go: held by nothing (a hit pushes nothing out), and its
// read-ahead holds neither the sector read next nor the pair's dst.
bool CacheDefeat::fits(std::uint64_t x, std::uint64_t next) const {
  if (x >= inner_.sectors() || held(x, 1)) return false;
  if (x <= next && next <= x + window_) return false;
  return !(pair_dst_ && *pair_dst_ >= x && *pair_dst_ <= x + window_);
}

std::optional<std::uint64_t> CacheDefeat::place(unsigned i) const {
  const std::uint64_t off = window_ + 1 + (i % kStrides) * stride_;
  if (i < kStrides) return head_ + off;
  if (head_ < off) return std::nullopt;
  return head_ - off;
}

bool CacheDefeat::evict_near(std::uint64_t next) {
  std::optional<unsigned> pick;
  const bool explore = evictions_ % kExploreEvery == kExploreEvery - 1;
  for (unsigned i = 0; i < 2 * kStrides; ++i) {
    const auto x = place(i);
    if (!x || !fits(*x, next)) continue;
    const StrideTime& c = strides_[i];
    if (!pick) {
      pick = i;
      continue;
    }
    const StrideTime& b = strides_[*pick];
    // Never tried first; then the quickest, or (exploring) the one tried longest ago.
    const bool better = (c.tried == 0) != (b.tried == 0) ? c.tried == 0
                        : explore                          ? c.tried < b.tried
                                                           : c.mean_ms < b.mean_ms;
    if (better) pick = i;
  }
  if (!pick) return false;
  const ProbeResult r = read_evicting(*place(*pick));
  StrideTime& c = strides_[*pick];
  const double took = r.complete_ms - r.issue_ms;
  c.mean_ms = c.tried == 0 ? took : (1.0 - kForget) * c.mean_ms + kForget * took;
  c.tried = evictions_;
  return true;
}

bool CacheDefeat::evict_past_held(std::uint64_t next) {
  const std::uint64_t n = inner_.sectors();
  std::uint64_t x = head_ + window_ + 1;
  // Each step passes one window: at most one a held read.
  for (std::size_t k = 0; k <= held_.size() + 1 && x < n; ++k) {
    if (fits(x, next)) {
      read_evicting(x);
      return true;
    }
    std::uint64_t past = x + 1;
    for (const Held& h : held_)
      if (h.first <= x && x < h.end) past = std::max(past, h.end);
    if (x <= next && next <= x + window_) past = std::max(past, next + 1);
    if (pair_dst_ && *pair_dst_ >= x && *pair_dst_ <= x + window_) past = std::max(past, *pair_dst_ + 1);
    x = past;
  }
  return false;
}

void CacheDefeat::evict(std::uint64_t next, unsigned count) {
  unsigned done = 0;
  while (done < count && (evict_near(next) || evict_past_held(next))) ++done;
  // Near the device's end: places a window or more from the read that follows, ahead of
  // it and then behind. Near it, so the moves there and back are short (a head switch or
  // a few cylinders, not a stroke).
  const std::uint64_t n = inner_.sectors();
  const std::uint64_t step = window_ + 1;
  for (std::uint64_t j = 1; done < count && j < 4 * segments_ + 8; ++j) {
    for (const bool ahead : {true, false}) {
      if (done == count) break;
      const std::uint64_t off = j * step;
      if (ahead ? next + off >= n : next < off) continue;
      const std::uint64_t x = ahead ? next + off : next - off;
      if (!fits(x, next)) continue;
      read_evicting(x);
      ++done;
    }
  }
  // A device too small for windows apart: far places, as many as it takes.
  for (std::uint64_t k = 1; done < count && k < 64; ++k) {
    const std::uint64_t x = (k * 104729ull * 7919ull + next) % n;
    if (held(x, 1)) continue;
    read_evicting(x);
    ++done;
  }
}

void CacheDefeat::pair(std::uint64_t src, std::uint64_t dst) {
  pair_dst_ = dst;
  const unsigned need = sweep_ ? segments_ : std::max(reads_to_push_out(src, 1), reads_to_push_out(dst, 1));
  sweep_ = false;
  if (need > 0) evict(src, need);
  // After the eviction nothing holds dst; src's read comes next and must not evict again.
}

ProbeResult CacheDefeat::read(std::uint64_t lba, std::uint32_t count) {
  const bool second_of_pair = pair_dst_ && *pair_dst_ == lba && !held_.empty() && held_.front().first != lba;
  if (!second_of_pair) {
    const unsigned need = sweep_ ? segments_ : reads_to_push_out(lba, count);
    sweep_ = false;
    if (need > 0) evict(lba, need);
  }
  if (second_of_pair) pair_dst_.reset();
  const ProbeResult r = inner_.read(lba, count);
  note_read(lba, count);
  note_head(lba + count - 1);
  return r;
}

ProbeResult CacheDefeat::write(std::uint64_t lba, std::uint32_t count) {
  if (pair_dst_ && *pair_dst_ == lba) pair_dst_.reset();
  known_ = 0;  // a write may take a segment, or refresh one
  note_head(lba + count - 1);
  return inner_.write(lba, count);
}

}  // namespace disksched::extract
