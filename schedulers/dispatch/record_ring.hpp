// The records of unfinished requests by id, where ids are handed out in arrival order:
// a ring that grows when the span between the oldest unfinished request and the newest
// outgrows it (a starved request keeps its slot). O(1) without hashing or allocation
// in the steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "schedulers/dispatch/request_record.hpp"

namespace disksched {

class RecordRing {
 public:
  RecordRing() : slots_(64), live_(64, 0) {}

  // A fresh record for the next id (ids come in order: `seq` == end()).
  RequestRecord& add(std::uint64_t seq) {
    if (seq - oldest_ >= slots_.size()) grow(seq);
    const std::size_t i = seq & (slots_.size() - 1);
    live_[i] = 1;
    // Cleared in place (a temporary and its copy cost twice the stores).
    std::destroy_at(&slots_[i]);
    std::construct_at(&slots_[i]);
    slots_[i].seq = seq;
    end_ = seq + 1;
    return slots_[i];
  }
  bool holds(std::uint64_t seq) const {
    return seq >= oldest_ && seq < end_ && live_[seq & (slots_.size() - 1)];
  }
  RequestRecord& at(std::uint64_t seq) { return slots_[seq & (slots_.size() - 1)]; }
  const RequestRecord& at(std::uint64_t seq) const { return slots_[seq & (slots_.size() - 1)]; }
  // The record stays readable until its slot is reused.
  void release(std::uint64_t seq) {
    live_[seq & (slots_.size() - 1)] = 0;
    while (oldest_ < end_ && !live_[oldest_ & (slots_.size() - 1)]) ++oldest_;
  }
  // Takes back the newest add() (its request was refused).
  void drop_newest() {
    live_[(end_ - 1) & (slots_.size() - 1)] = 0;
    --end_;
  }
  std::uint64_t end() const { return end_; }

 private:
  void grow(std::uint64_t seq) {
    std::size_t n = slots_.size();
    while (seq - oldest_ >= n) n *= 2;
    std::vector<RequestRecord> s(n);
    std::vector<unsigned char> l(n, 0);
    for (std::uint64_t q = oldest_; q < end_; ++q) {
      const std::size_t old = q & (slots_.size() - 1);
      if (!live_[old]) continue;
      s[q & (n - 1)] = slots_[old];
      l[q & (n - 1)] = 1;
    }
    slots_.swap(s);
    live_.swap(l);
  }

  std::vector<RequestRecord> slots_;
  std::vector<unsigned char> live_;
  std::uint64_t oldest_ = 0;  // no unfinished request has a lower seq
  std::uint64_t end_ = 0;     // one past the newest seq
};

}  // namespace disksched
