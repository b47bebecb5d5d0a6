// A log-linear histogram of non-negative integer values (nanoseconds): exact below 128,
// then 64 buckets per power of two, so any reported percentile is within 1.6% (rounded
// up) of a value that occurred. Fixed size (2.3k buckets), O(1) record.
// Kept by hand: Debian 12 packages HdrHistogram only for Java (libhdrhistogram-java) and
// Go (golang-github-codahale-hdrhistogram-dev); there is no C or C++ package. Boost.Histogram
// (libboost1.74-dev) has the buckets but no percentile query (1.74's algorithms: empty,
// project, reduce, sum), which is what this class is for.
#pragma once

#include <array>
#include <cstdint>

namespace disksched::diskemu {

class LatencyHistogram {
 public:
  static constexpr int exact_below = 128;
  static constexpr int per_octave = 64;
  static constexpr int octaves = 34;   // up to 2^40 ns, about 18 minutes
  static constexpr int bucket_count = exact_below + octaves * per_octave;

  void record(std::int64_t value);
  std::uint64_t count() const { return count_; }
  std::int64_t max() const { return max_; }
  std::int64_t min() const { return count_ ? min_ : 0; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  // The smallest bucket bound b such that at least q * count values are <= b, clamped to
  // the exact maximum. q in [0, 1]; 0 when empty.
  std::int64_t percentile(double q) const;

  static int bucket_of(std::int64_t value);
  static std::int64_t upper_bound(int bucket);   // the largest value in the bucket

 private:
  std::array<std::uint64_t, bucket_count> buckets_{};
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
  std::int64_t max_ = 0;
  std::int64_t min_ = 0;
};

}  // namespace disksched::diskemu
