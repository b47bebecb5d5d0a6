// How long the device was busy: the union of the times the controller served commands
// and the times the mechanism destaged cached writes. The two overlap (a write taken
// into the buffer while the mechanism destages, a command that waits for a destage), so
// summing them counts the overlap twice: a write-cached run reported a utilization of 2.
//
// Each source comes in time order (a command starts after the one before it completed,
// a destage after the one before it reached the media), so everything before the
// earlier of the two sources' last ends is final: it is counted and dropped, and only
// a few intervals are ever held.
#pragma once

#include <algorithm>
#include <deque>
#include <limits>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched {

class BusyTime {
 public:
  // `destages`: the device has a write cache that destages on its own (else only
  // commands come, and each is final once the next one starts after it).
  explicit BusyTime(bool destages = false) : destages_come_(destages) {}
  // [from, to) of the controller serving a command; clipped to start after the last.
  void command(Millis from, Millis to) {
    if (!destages_come_ && destages_.empty()) {
      // Commands alone: each is final as it comes, and the union of the one held span
      // is its length; the same sum add() makes, without holding it.
      from = std::max(from, last_command_);
      if (!(to > from)) return;
      final_ += to - from;
      final_end_ = last_command_ = to;
      return;
    }
    add(commands_, last_command_, from, to);
  }
  // [from, to) of the mechanism writing a cached extent back.
  void destage(Millis from, Millis to) { add(destages_, last_destage_, from, to); }
  // The busy time so far, up to `hi`.
  Millis total(Millis hi = kEnd) const {
    return final_ + (hi > final_end_ ? union_after(final_end_, hi) : 0.0);
  }
  static constexpr Millis kEnd = std::numeric_limits<Millis>::infinity();

 private:
  struct Span {
    Millis from, to;
  };

  void add(std::deque<Span>& q, Millis& last, Millis from, Millis to) {
    from = std::max(from, last);
    if (!(to > from)) return;
    q.push_back({from, to});
    last = to;
    // Neither source goes back before the earlier of their ends: final up to there.
    const Millis upto = destages_come_ ? std::min(last_command_, last_destage_) : last_command_;
    if (upto > final_end_) {
      final_ += union_after(final_end_, upto);
      final_end_ = upto;
      drop_before(commands_, upto);
      drop_before(destages_, upto);
    }
  }
  // The length of the union of the held spans within [lo, hi).
  Millis union_after(Millis lo, Millis hi) const {
    std::vector<Span> all(commands_.begin(), commands_.end());
    all.insert(all.end(), destages_.begin(), destages_.end());
    std::sort(all.begin(), all.end(), [](const Span& a, const Span& b) { return a.from < b.from; });
    Millis sum = 0.0, reach = lo;
    for (const Span& s : all) {
      const Millis a = std::max(s.from, reach), b = std::min(s.to, hi);
      if (b > a) {
        sum += b - a;
        reach = b;
      }
    }
    return sum;
  }
  static void drop_before(std::deque<Span>& q, Millis t) {
    while (!q.empty() && q.front().to <= t) q.pop_front();
    if (!q.empty()) q.front().from = std::max(q.front().from, t);
  }

  bool destages_come_;
  std::deque<Span> commands_, destages_;
  Millis last_command_ = -kEnd, last_destage_ = -kEnd;
  Millis final_ = 0.0, final_end_ = -kEnd;
};

}  // namespace disksched
