// Orderings shared by the seek, class and MEMS schedulers.
//
// Every algorithm breaks ties the same way so runs are reproducible: the earliest
// arrival first, then the lowest id (scheduler.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched {

struct ArrivalKey {
  Millis arrival = 0.0;
  std::uint64_t id = 0;
  bool operator<(const ArrivalKey& o) const {
    return arrival < o.arrival || (arrival == o.arrival && id < o.id);
  }
  bool operator==(const ArrivalKey& o) const = default;
};

inline ArrivalKey arrival_key(const Request& r) { return {r.arrival_ms, r.id}; }

// The requests a scheduler holds, by id.
class HeldRequests {
 public:
  const Request& insert(const Request& r) {
    auto [it, fresh] = by_id_.emplace(r.id, r);
    if (!fresh)
      throw std::invalid_argument("scheduler: request id " + std::to_string(r.id) +
                                  " is already held");
    return it->second;
  }
  const Request* find(std::uint64_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &it->second;
  }
  // Removes and returns the request.
  Request take(std::uint64_t id) {
    auto it = by_id_.find(id);
    Request r = std::move(it->second);
    by_id_.erase(it);
    return r;
  }
  std::size_t size() const { return by_id_.size(); }
  bool empty() const { return by_id_.empty(); }
  auto begin() const { return by_id_.begin(); }
  auto end() const { return by_id_.end(); }
  void clear() { by_id_.clear(); }
  // Removes and returns every request (a scheduler's drain()).
  std::vector<Request> take_all() {
    std::vector<Request> out;
    out.reserve(by_id_.size());
    for (const auto& [id, r] : by_id_) out.push_back(r);
    by_id_.clear();
    return out;
  }

 private:
  std::unordered_map<std::uint64_t, Request> by_id_;
};

// SPTF over `keys` (ArrivalKeys of held requests, in arrival order, so the first minimum
// is the one the tie rule prefers), walking until `stop(key)`: the id with the shortest
// positioning time from `head`; nullopt when no key was walked.
template <class Keys, class Stop>
std::optional<std::uint64_t> shortest_positioning(const DeviceModel& model, const HeadState& head,
                                                  const HeldRequests& held, const Keys& keys,
                                                  Stop&& stop) {
  std::optional<std::uint64_t> best;
  Millis best_ms = 0;
  for (const ArrivalKey& k : keys) {
    if (stop(k)) break;
    const Millis t = model.positioning_ms(head, held.find(k.id)->loc);
    if (!best || t < best_ms) {
      best = k.id;
      best_ms = t;
    }
  }
  return best;
}

// Requests sorted by a position (a cylinder, an LBN), then by `sub` (0, or an LBN when
// requests on one cylinder go in ascending block order), then by arrival and id. Finds
// the request nearest to a position in O(log n): the first entry at a position is the
// one the tie rule prefers.
template <typename Pos>
class PositionIndex {
 public:
  struct Entry {
    Pos pos;
    std::uint64_t sub;
    ArrivalKey key;
    bool operator<(const Entry& o) const {
      if (pos != o.pos) return pos < o.pos;
      if (sub != o.sub) return sub < o.sub;
      return key < o.key;
    }
  };

  void insert(Pos pos, std::uint64_t sub, const Request& r) {
    set_.insert(Entry{pos, sub, arrival_key(r)});
  }
  void erase(Pos pos, std::uint64_t sub, const Request& r) {
    set_.erase(Entry{pos, sub, arrival_key(r)});
  }
  bool empty() const { return set_.empty(); }
  std::size_t size() const { return set_.size(); }

  // The preferred entry at the lowest position >= p.
  const Entry* at_or_above(Pos p) const {
    auto it = set_.lower_bound(floor_entry(p));
    return it == set_.end() ? nullptr : &*it;
  }
  // The preferred entry at the highest position < p.
  const Entry* below(Pos p) const {
    auto it = set_.lower_bound(floor_entry(p));
    if (it == set_.begin()) return nullptr;
    --it;
    return &*set_.lower_bound(floor_entry(it->pos));
  }
  // The preferred entry at the highest position <= p.
  const Entry* at_or_below(Pos p) const {
    auto it = set_.lower_bound(floor_entry(p));
    if (it != set_.end() && it->pos == p) return &*it;
    return below(p);
  }
  // The next entry a sweep meets from p: at_or_above(p) going up, at_or_below(p) going down.
  const Entry* ahead(Pos p, bool up) const { return up ? at_or_above(p) : at_or_below(p); }
  // LOOK's next entry from p: the next ahead, else the next after turning (`up` flips);
  // the index is not empty.
  const Entry* look(Pos p, bool& up) const {
    if (const Entry* e = ahead(p, up)) return e;
    up = !up;
    return ahead(p, up);
  }
  // C-LOOK's next entry from p: the next going up, else the lowest (wrap around).
  const Entry* circular_look(Pos p) const {
    const Entry* e = at_or_above(p);
    return e != nullptr ? e : lowest();
  }
  // The preferred entry at the lowest position.
  const Entry* lowest() const { return set_.empty() ? nullptr : &*set_.begin(); }

  // The entry nearest to p (distance |pos - p|); equal distances go to the tie rule.
  const Entry* nearest(Pos p) const {
    const Entry* up = at_or_above(p);
    const Entry* down = below(p);
    if (down == nullptr) return up;
    if (up == nullptr) return down;
    Pos du = up->pos - p;    // Pos may be unsigned: subtract the smaller from the larger
    Pos dd = p - down->pos;
    if (du != dd) return du < dd ? up : down;
    return down->key < up->key ? down : up;
  }

 private:
  static Entry floor_entry(Pos p) {
    return Entry{p, 0, ArrivalKey{-std::numeric_limits<Millis>::infinity(), 0}};
  }
  std::set<Entry> set_;
};

}  // namespace disksched
