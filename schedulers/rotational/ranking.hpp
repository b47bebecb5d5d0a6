// The one tie rule every rotational scheduler uses, so runs are reproducible:
// smaller key first, then the earliest arrival, then the lowest id.
#pragma once

#include <cstdint>
#include <limits>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched::rotational {

// A candidate's rank: its key (what the algorithm minimises) and the tie-breakers.
struct Rank {
  double key = std::numeric_limits<double>::infinity();
  Millis arrival = std::numeric_limits<double>::infinity();
  std::uint64_t id = std::numeric_limits<std::uint64_t>::max();
  bool found = false;

  static Rank of(double key, const Request& r) { return Rank{key, r.arrival_ms, r.id, true}; }
};

// True when `a` goes before `b`. An empty rank (found == false) goes after everything.
inline bool before(const Rank& a, const Rank& b) {
  if (a.found != b.found) return a.found;
  if (a.key != b.key) return a.key < b.key;
  if (a.arrival != b.arrival) return a.arrival < b.arrival;
  return a.id < b.id;
}

// Tie rule on requests alone (FCFS order): earliest arrival, then lowest id.
inline bool older(const Request& a, const Request& b) {
  if (a.arrival_ms != b.arrival_ms) return a.arrival_ms < b.arrival_ms;
  return a.id < b.id;
}

}  // namespace disksched::rotational
