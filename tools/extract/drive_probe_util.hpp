// What the drive steps share: latencies and medians of probes, random places, the budget.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "tools/extract/drive_steps.hpp"

namespace disksched::extract::drive {

inline Millis latency(const ProbeResult& r) { return r.complete_ms - r.issue_ms; }

inline Millis median_of(std::vector<Millis> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// A step's probes: the target, the seeded places, the time it may take.
struct Session {
  ProbeTarget& t;
  const DriveStepOptions& o;
  std::mt19937_64 rng;
  std::uint32_t req;  // sectors of a 4 KiB request (at least one sector)
  Millis start;

  Session(ProbeTarget& target, const DriveStepOptions& opts, std::uint64_t salt)
      : t(target), o(opts), rng(opts.seed * 1000003u + salt),
        req(std::max<std::uint32_t>(1, 4096 / target.sector_bytes())), start(target.now_ms()) {}

  bool over() { return t.now_ms() - start > o.budget_ms; }
  double used() { return std::min(1.0, (t.now_ms() - start) / o.budget_ms); }
  // A request-aligned place in [first, last] with `span` sectors after it inside.
  std::uint64_t place(std::uint64_t first, std::uint64_t last, std::uint64_t span) {
    const std::uint64_t room = last + 1 - first > span ? last + 1 - first - span : 1;
    const std::uint64_t x = std::uniform_int_distribution<std::uint64_t>(0, room - 1)(rng);
    return first + x - x % req;
  }
  std::uint64_t place(std::uint64_t span) { return place(0, t.sectors() - 1, span); }
  // Half the device away from `lba` (a long seek from there), request-aligned.
  std::uint64_t far_from(std::uint64_t lba, std::uint64_t span) {
    const std::uint64_t n = t.sectors() - span;
    const std::uint64_t x = (lba + t.sectors() / 2) % n;
    return x - x % req;
  }
  void idle(Millis ms) { t.wait_until(t.now_ms() + ms); }
};

}  // namespace disksched::extract::drive
