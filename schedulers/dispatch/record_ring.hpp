// The records of unfinished requests by id, where ids are handed out in arrival order:
// a ring that grows when the span between the oldest unfinished request and the newest
// outgrows it (a starved request keeps its slot). O(1) without hashing or allocation
// in the steady state.
//
// A record is kept in the ring's own storage (the simulator's) or held by the caller,
// who keeps it in place until the request completes (the filter's worker: its one
// record from arrival to log line); the ring then points at it and the core fills it in
// where it is, never copying it out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "schedulers/dispatch/request_record.hpp"

namespace disksched {

class RecordRing {
 public:
  // Small to start (it grows as the span of unfinished ids needs): a light load's
  // records then stay in the first-level cache beside the queue's.
  RecordRing() : own_(16), at_(16, nullptr) {}

  // The next id's record (ids come in order: `seq` == end()), a copy of `arrival` in
  // the ring's storage.
  RequestRecord& add(std::uint64_t seq, const RequestRecord& arrival) {
    const std::size_t i = place(seq);
    own_[i] = arrival;
    own_[i].seq = seq;
    at_[i] = &own_[i];
    return own_[i];
  }
  // The ring's own slot for the next id, cleared, for an arrival to be built in place
  // and then held (hold()); until then it is not the next id's record.
  RequestRecord& next() {
    if (end_ - oldest_ >= at_.size()) grow(end_);
    RequestRecord& r = own_[end_ & (at_.size() - 1)];
    // Cleared in place (a temporary and its copy cost twice the stores).
    std::destroy_at(&r);
    std::construct_at(&r);
    return r;
  }
  // The next id's record is `rec`, held in place until release(): the caller's, or the
  // slot next() gave.
  RequestRecord& hold(std::uint64_t seq, RequestRecord& rec) {
    at_[place(seq)] = &rec;
    rec.seq = seq;
    return rec;
  }
  bool holds(std::uint64_t seq) const {
    return seq >= oldest_ && seq < end_ && at_[seq & (at_.size() - 1)] != nullptr;
  }
  RequestRecord& at(std::uint64_t seq) { return *at_[seq & (at_.size() - 1)]; }
  const RequestRecord& at(std::uint64_t seq) const { return *at_[seq & (at_.size() - 1)]; }
  // The record stays readable until its slot is reused (a held one: as long as its
  // holder keeps it).
  void release(std::uint64_t seq) {
    at_[seq & (at_.size() - 1)] = nullptr;
    while (oldest_ < end_ && at_[oldest_ & (at_.size() - 1)] == nullptr) ++oldest_;
  }
  // Takes back the newest add() or hold() (its request was refused).
  void drop_newest() {
    at_[(end_ - 1) & (at_.size() - 1)] = nullptr;
    --end_;
  }
  std::uint64_t end() const { return end_; }

 private:
  std::size_t place(std::uint64_t seq) {
    if (seq - oldest_ >= at_.size()) grow(seq);
    end_ = seq + 1;
    return seq & (at_.size() - 1);
  }

  void grow(std::uint64_t seq) {
    std::size_t n = at_.size();
    while (seq - oldest_ >= n) n *= 2;
    std::vector<RequestRecord> own(n);
    std::vector<RequestRecord*> at(n, nullptr);
    for (std::uint64_t q = oldest_; q < end_; ++q) {
      const std::size_t old = q & (at_.size() - 1);
      if (at_[old] == nullptr) continue;
      const std::size_t i = q & (n - 1);
      if (at_[old] == &own_[old]) {
        own[i] = own_[old];
        at[i] = &own[i];
      } else {
        at[i] = at_[old];  // held by its caller
      }
    }
    own_.swap(own);
    at_.swap(at);
  }

  std::vector<RequestRecord> own_;
  std::vector<RequestRecord*> at_;  // null: no unfinished request has this slot
  std::uint64_t oldest_ = 0;  // no unfinished request has a lower seq
  std::uint64_t end_ = 0;     // one past the newest seq
};

}  // namespace disksched
