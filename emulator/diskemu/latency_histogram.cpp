#include "emulator/diskemu/latency_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace disksched::diskemu {

int LatencyHistogram::bucket_of(std::int64_t value) {
  if (value < exact_below) return value < 0 ? 0 : static_cast<int>(value);
  const auto v = static_cast<std::uint64_t>(value);
  // shift >= 1 puts v >> shift in [64, 128).
  const int shift = std::bit_width(v) - 7;
  const int octave = shift - 1;
  if (octave >= octaves) return bucket_count - 1;
  return exact_below + octave * per_octave + static_cast<int>((v >> shift) - per_octave);
}

std::int64_t LatencyHistogram::upper_bound(int bucket) {
  if (bucket < exact_below) return bucket;
  const int octave = (bucket - exact_below) / per_octave;
  const int sub = (bucket - exact_below) % per_octave;
  const int shift = octave + 1;
  return ((static_cast<std::int64_t>(per_octave + sub) + 1) << shift) - 1;
}

void LatencyHistogram::record(std::int64_t value) {
  if (value < 0) value = 0;
  ++buckets_[bucket_of(value)];
  if (count_ == 0 || value < min_) min_ = value;
  max_ = std::max(max_, value);
  sum_ += static_cast<double>(value);
  ++count_;
}

std::int64_t LatencyHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * count_)));
  std::uint64_t seen = 0;
  for (int b = 0; b < bucket_count; ++b) {
    seen += buckets_[b];
    if (seen >= rank) return std::min(upper_bound(b), max_);
  }
  return max_;
}

}  // namespace disksched::diskemu
