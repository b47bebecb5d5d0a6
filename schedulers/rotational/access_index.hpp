// The request set behind the SATF family, with JW's cell-ordered fast search
// (Jacobson & Wilkes 1991, sec. 4.2, Fig. 4-5).
//
// The disk is divided into cells of (cylinder band, angle bucket): kBuckets equal
// angle buckets of one rotation, bands of `band_width` consecutive cylinders. Every
// request lives in the cell of its start (cylinder, angle). A search for the request
// with the smallest key
//
//     key(r) = positioning_ms(head, r) - beta * (now - r.arrival_ms)
//
// (beta = 0: SATF; beta > 0: ASATF's age term, see asatf.hpp) visits bands in
// increasing order of their mechanical lower bound (outward from the head's band),
// and inside a band the non-empty cells in the order the platter brings them under
// the head. Each cell has a lower bound on the key of anything in it; the search
// stops as soon as the best request found ranks before every bound still ahead,
// which is JW's "T_A(best) <= T_worst(cell)" exit. Where JW precompute the cell order
// per head cell, we compute the bounds from the exact head state at each pick (a few
// table look-ups), which keeps them tight; a 64-bit mask per band finds its next
// non-empty cell with one rotate and one count-trailing-zeros.
//
// Why the bounds hold (the DeviceModel contract for a disk: positioning is the op's
// command overhead, then seek with settle / head switch, then rotational wait until
// the start sector comes under the head):
//   positioning(r) = m + wait,  m >= overhead(r) + seek_lb(|cyl(r) - cyl(head)|),
// and the transfer starts when the platter angle equals angle(r), so positioning(r)
// is the first time >= m at which angle_at(head.time + t) == angle(r). With
// phi = angle at head.time + m_lb, positioning(r) >= m_lb + ((angle(r) - phi) mod 1) * T.
// seek_lb(d) is min over d' >= d of model.seek_ms(d'), so it is non-decreasing and
// bounds every seek of at least d cylinders. Every bound is lowered by kSlackMs
// (a nanosecond) and an angle within kPhiBack of a whole rotation counts as no wait,
// so floating-point rounding (the platter angle of a time t ms carries an error of
// about t / T * 1e-16 rotations) can never prune a request the model would cost at
// the bound itself; the exact choice, including the tie rule, is always decided on
// model.positioning_ms.
//
// Three regimes, all exact (tests/rotational/test_access_index.cpp compares each with
// an exhaustive scan):
//  - up to kLinearMax requests: no grid at all; one pass computes every request's own
//    bound from a compact array and costs only those that can still rank first;
//  - longer queues: the cell grid above;
//  - ASATF with ages spread wide (consecutive arrivals differing by a sizeable age
//    bonus): the age term can outweigh any access time, so the oldest requests are
//    costed first from an arrival-ordered array, and the cell search covers the rest
//    with every age bound capped at the first request not walked; bands are grouped
//    (kGroupBands) with the group's oldest arrival so whole groups are skipped.
//
// On a model that is not a rotating disk (MEMS) the contract above does not hold, so
// the index falls back to an exhaustive scan there (cell_search() == false).
//
// One index belongs to one scheduler: best() is const but records last_stats(), so
// it is not for concurrent use.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"
#include "schedulers/rotational/id_map.hpp"
#include "schedulers/rotational/ranking.hpp"

namespace disksched::rotational {

class AccessIndex {
 public:
  static constexpr int kBuckets = 64;        // angle buckets per rotation (one mask word)
  static constexpr int kMaxBands = 512;      // cylinder bands; band width = ceil(C / 512)
  static constexpr int kGroupBands = 16;     // bands per group (ASATF's age bounds)
  static constexpr double kSlackMs = 1e-6;   // rounding allowance on every lower bound
  static constexpr double kPhiBack = 1e-6;   // rotations: rounding allowance on angles
  // Queues this short are searched by every request's own bound in one pass (cheaper
  // than walking bands at this size).
  static constexpr std::size_t kLinearMax = 24;
  static constexpr std::size_t kGridOff = kLinearMax / 2;  // grid dropped below this
  // ASATF: the oldest requests are searched first (see best()), at most kWalkMax of
  // them, when consecutive arrivals differ on average by more than this part of a
  // rotation in age bonus.
  static constexpr double kWalkGapRotations = 0.002;
  static constexpr std::size_t kWalkMax = 96;

  // `track_age`: keep each cell's and band's oldest arrival, needed when the key has an
  // age term (beta > 0) and by oldest_arrival().
  AccessIndex(const DeviceModel& model, bool track_age);

  // Adds a request; its id must not be held (throws std::invalid_argument).
  void insert(const Request& r);
  // Removes and returns the request with this id; nullopt when not held.
  std::optional<Request> erase(std::uint64_t id);
  const Request* find(std::uint64_t id) const;
  bool contains(std::uint64_t id) const { return slot_of_.find(id) != IdMap::kAbsent; }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Every request held (in no particular order); the index is empty afterwards.
  std::vector<Request> drain();
  // The earliest arrival held (+inf when empty). Needs track_age.
  Millis oldest_arrival() const;
  // Insertion sequence number of a held request (0, 1, 2, ... in insert order).
  std::uint64_t seq_of(std::uint64_t id) const;
  // The sequence number the next insert() will get.
  std::uint64_t next_seq() const { return next_seq_; }
  bool cell_search() const { return cells_; }
  const DeviceModel& model() const { return model_; }

  // f(const Request&, std::uint64_t seq) for every request held.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : slots_)
      if (s.live) f(s.req, s.seq);
  }

  struct Query {
    HeadState head;
    Millis now = 0.0;
    double beta = 0.0;  // key = positioning - beta * (now - arrival); beta >= 0
    // Only requests whose start cylinder lies in [cyl_lo, cyl_hi].
    std::int64_t cyl_lo = std::numeric_limits<std::int64_t>::min();
    std::int64_t cyl_hi = std::numeric_limits<std::int64_t>::max();
    // A candidate the caller already has (e.g. SATFUF's forced request); the search
    // returns a held request only if it ranks before this one.
    Rank initial;
  };

  struct Choice {
    Rank rank;                      // rank of the choice (== Query::initial if none better)
    Millis positioning_ms = 0.0;    // model.positioning_ms(head, *req)
    const Request* req = nullptr;   // the chosen held request, nullptr if none ranks first
  };

  struct NoFilter {
    bool operator()(const Request&, std::uint64_t, Millis) const { return true; }
  };

  // The held request of smallest rank (key, then arrival, then id) among those
  // `accept(req, seq, positioning_ms)` admits. `accept` is asked only about a request
  // that would otherwise become the best so far, so it may be expensive; it must be a
  // pure function of the request for the result to be exact.
  template <class Accept = NoFilter>
  Choice best(const Query& q, Accept&& accept = Accept{}) const;

  // The same choice by an exhaustive scan of every held request (the reference the
  // fast search is tested against, and the method on non-disk models).
  template <class Accept = NoFilter>
  Choice best_scan(const Query& q, Accept&& accept = Accept{}) const;

  // Visits counted by the last best() (cells entered, requests costed): for tests and
  // tuning, not part of any decision.
  struct Stats {
    std::size_t walked = 0, groups_skipped = 0, bands = 0, cells = 0, bounded = 0, costed = 0;
  };
  const Stats& last_stats() const { return stats_; }

 private:
  struct Slot {
    Request req;
    std::uint64_t seq = 0;
    std::int32_t next = -1, prev = -1;  // neighbours in its cell's list
    std::int32_t cell = -1;
    std::int32_t hot = -1;              // position in hot_
    bool live = false;
  };

  // The arrival order (track_age): sorted by (arrival, id), erased entries left in
  // place until compaction (an entry is stale when its slot's generation moved on).
  struct AgeEntry {
    Millis arrival;
    std::uint64_t id;
    std::int32_t slot;
    std::uint32_t gen;
    // What the oldest-first walk needs for a request's own bound, kept here so the
    // walk reads one contiguous array.
    std::int64_t cylinder;
    double angle;
    Millis overhead;
  };
  bool stale(const AgeEntry& e) const {
    return slot_gen_[e.slot] != e.gen;
  }
  void order_insert(const AgeEntry& e);
  void order_erased();
  // The grid (cells, bands, ages, arrival order) exists only for queues longer than
  // kLinearMax: short queues are searched without it and cost nothing to keep.
  void grid_build();
  void grid_clear();
  void grid_link(std::int32_t slot);
  void grid_unlink(std::int32_t slot, Millis arrival);

  // x - floor(x) without a data-dependent branch for the values the search meets
  // (angles minus a few rotations): truncation equals floor once x is made positive.
  static double frac(double x) {
    const double y = x + 1024.0;
    if (y < 0.0) return x - std::floor(x);  // never for any real disk
    return y - static_cast<double>(static_cast<std::int64_t>(y));
  }
  std::int64_t clamp_cyl(std::int64_t c) const { return c < 0 ? 0 : (c >= C_ ? C_ - 1 : c); }
  int bucket_of(double angle) const {
    int k = static_cast<int>(frac(angle) * kBuckets);
    return k < 0 ? 0 : (k >= kBuckets ? kBuckets - 1 : k);
  }
  // Smallest cylinder distance from c0 to band b.
  std::int64_t band_distance(std::int32_t b, std::int64_t c0) const {
    const std::int64_t lo = static_cast<std::int64_t>(b) * W_;
    const std::int64_t hi = lo + W_ - 1;
    return c0 < lo ? lo - c0 : (c0 > hi ? c0 - hi : 0);
  }
  // First non-empty band in [from, to], or -1.
  std::int32_t next_band(std::int32_t from, std::int32_t to) const;
  // Last non-empty band in [to, from], or -1.
  std::int32_t prev_band(std::int32_t from, std::int32_t to) const;
  void refresh_cell_age(std::int32_t cell);
  void refresh_band_age(std::int32_t band);
  void refresh_group_age(std::int32_t group);
  void add_overhead(Millis o);
  void remove_overhead(Millis o);

  const DeviceModel& model_;
  bool track_age_;
  bool cells_ = false;       // the model is a disk: cell bounds hold
  bool grid_on_ = false;     // the grid is built (long queue)
  std::int64_t C_ = 1;       // cylinders
  std::int64_t W_ = 1;       // band width in cylinders
  std::int32_t B_ = 1;       // bands
  Millis T_ = 0.0;           // rotation period

  std::vector<Slot> slots_;
  // Per slot, bumped at every insert and erase: odd while live. Kept apart from the
  // slots so the oldest-first walk checks staleness in a small array.
  std::vector<std::uint32_t> slot_gen_;
  // What the short-queue pass reads, for every live slot, densely (one array per
  // field, so the pass streams through memory).
  struct HotArrays {
    std::vector<std::int64_t> cylinder;
    // In rotations: the start angle less the command overhead, and the overhead, so
    // the pass computes a bound with one table look-up and no division.
    std::vector<double> phase;
    std::vector<double> overhead_rot;
    std::vector<Millis> arrival;
    std::vector<std::int32_t> slot;

    std::size_t size() const { return slot.size(); }
    void push(const Request& r, std::int32_t si, double inv_T) {
      cylinder.push_back(r.loc.cylinder);
      phase.push_back(r.loc.angle - r.loc.overhead_ms * inv_T);
      overhead_rot.push_back(r.loc.overhead_ms * inv_T);
      arrival.push_back(r.arrival_ms);
      slot.push_back(si);
    }
    // Moves the last entry to position i and drops the last.
    void swap_remove(std::size_t i) {
      cylinder[i] = cylinder.back();
      phase[i] = phase.back();
      overhead_rot[i] = overhead_rot.back();
      arrival[i] = arrival.back();
      slot[i] = slot.back();
      cylinder.pop_back();
      phase.pop_back();
      overhead_rot.pop_back();
      arrival.pop_back();
      slot.pop_back();
    }
    void clear() {
      cylinder.clear();
      phase.clear();
      overhead_rot.clear();
      arrival.clear();
      slot.clear();
    }
  };
  HotArrays hot_;
  std::vector<std::int32_t> free_;
  std::vector<AgeEntry> order_;             // track_age: arrival order, from order_head_
  std::size_t order_head_ = 0;
  std::size_t order_stale_ = 0;
  Millis walk_gap_ = 0.0;                   // kWalkGapRotations * T_
  Millis near_seek_ = 0.0;                  // seek_lb_[1]: the nearest other band
  IdMap slot_of_;
  std::size_t count_ = 0;
  std::uint64_t next_seq_ = 0;

  std::vector<std::int32_t> cell_head_;     // B_ * kBuckets list heads
  std::vector<std::uint64_t> band_mask_;    // non-empty cells of each band
  std::vector<std::uint64_t> band_bits_;    // non-empty bands
  std::vector<double> cell_oldest_;         // track_age: oldest arrival per cell
  std::vector<double> band_oldest_;         // track_age: oldest arrival per band
  std::vector<double> group_oldest_;        // track_age: ... per kGroupBands bands
  std::vector<Millis> seek_lb_;             // C_ entries, non-decreasing
  std::vector<double> seek_rot_;            // seek_lb_ / T_, in rotations
  std::vector<std::pair<Millis, std::size_t>> overheads_;  // distinct overheads, counts
  Millis min_overhead_ = 0.0;
  mutable Stats stats_;
};

template <class Accept>
AccessIndex::Choice AccessIndex::best_scan(const Query& q, Accept&& accept) const {
  Choice out;
  out.rank = q.initial;
  stats_ = Stats{};
  for (const auto& s : slots_) {
    if (!s.live) continue;
    const Location& L = s.req.loc;
    if (L.cylinder < q.cyl_lo || L.cylinder > q.cyl_hi) continue;
    const Millis pos = model_.positioning_ms(q.head, L);
    ++stats_.costed;
    const Rank cand = Rank::of(pos - q.beta * (q.now - s.req.arrival_ms), s.req);
    if (before(cand, out.rank) && accept(s.req, s.seq, pos)) out = Choice{cand, pos, &s.req};
  }
  return out;
}

template <class Accept>
AccessIndex::Choice AccessIndex::best(const Query& q, Accept&& accept) const {
  // Without the per-cell ages an age term cannot be bounded: scan (not used so).
  if (!cells_ || (q.beta > 0.0 && !track_age_)) return best_scan(q, accept);
  Choice out;
  out.rank = q.initial;
  stats_ = Stats{};
  if (count_ == 0) return out;
  const std::int64_t lo = q.cyl_lo < 0 ? 0 : q.cyl_lo;
  const std::int64_t hi = q.cyl_hi > C_ - 1 ? C_ - 1 : q.cyl_hi;
  if (lo > hi) return out;
  const bool window = lo > 0 || hi < C_ - 1;
  const std::int64_t c0 = clamp_cyl(q.head.cylinder);
  const bool aged = q.beta > 0.0;
  const double a0 = model_.angle_at(q.head.time_ms);
  const double inv_T = 1.0 / T_;

  // A request's own lower bound on its positioning time, from its exact cylinder and
  // angle (see the top of this file).
  auto own_bound = [&](std::int64_t cylinder, double angle, Millis overhead) {
    const std::int64_t d = cylinder > c0 ? cylinder - c0 : c0 - cylinder;
    const Millis mech = overhead + seek_lb_[d < C_ ? d : C_ - 1];
    double rel = frac(angle - a0 - mech * inv_T);
    if (rel > 1.0 - kPhiBack) rel = 0.0;
    return mech + rel * T_;
  };
  // Costs one request unless its own bound shows it cannot rank first.
  auto consider_bounded = [&](const Slot& s, Millis bound) {
    const double bonus = aged ? q.beta * (q.now - s.req.arrival_ms) : 0.0;
    ++stats_.bounded;
    if (bound - bonus - kSlackMs > out.rank.key) return;
    const Millis pos = model_.positioning_ms(q.head, s.req.loc);
    ++stats_.costed;
    const Rank cand = Rank::of(pos - bonus, s.req);
    if (before(cand, out.rank) && accept(s.req, s.seq, pos)) out = Choice{cand, pos, &s.req};
  };
  auto consider = [&](const Slot& s) {
    const Location& L = s.req.loc;
    if (window && (L.cylinder < lo || L.cylinder > hi)) return;
    consider_bounded(s, own_bound(L.cylinder, L.angle, L.overhead_ms));
  };

  // Short queues: every request's own bound from the compact array; the exact cost
  // only where the bound can still rank first.
  if (count_ <= kLinearMax || !grid_on_) {
    Millis lb[kLinearMax];
    std::int32_t who[kLinearMax];
    std::size_t n = 0;
    const std::size_t size = hot_.size();
    for (std::size_t i = 0; i < size; ++i) {
      const std::int64_t cyl = hot_.cylinder[i];
      if (window && (cyl < lo || cyl > hi)) continue;
      // own_bound() in rotations: overhead + seek, then the wait for the start angle.
      const std::int64_t d = cyl > c0 ? cyl - c0 : c0 - cyl;
      const double seek = seek_rot_[d < C_ ? d : C_ - 1];
      double rel = frac(hot_.phase[i] - a0 - seek);
      if (rel > 1.0 - kPhiBack) rel = 0.0;
      lb[n] = (hot_.overhead_rot[i] + seek + rel) * T_ -
              (aged ? q.beta * (q.now - hot_.arrival[i]) : 0.0);
      who[n++] = hot_.slot[i];
    }
    stats_.bounded = n;
    if (n == 0) return out;
    // The smallest bound first (usually the choice), then every other request whose
    // bound still reaches the best so far.
    std::size_t first = 0;
    for (std::size_t i = 1; i < n; ++i)
      if (lb[i] < lb[first]) first = i;
    auto cost = [&](std::size_t i) {
      const Slot& s = slots_[who[i]];
      const Millis pos = model_.positioning_ms(q.head, s.req.loc);
      ++stats_.costed;
      const Rank cand =
          Rank::of(pos - (aged ? q.beta * (q.now - s.req.arrival_ms) : 0.0), s.req);
      if (before(cand, out.rank) && accept(s.req, s.seq, pos)) out = Choice{cand, pos, &s.req};
    };
    if (lb[first] - kSlackMs > out.rank.key) return out;
    cost(first);
    for (std::size_t i = 0; i < n; ++i)
      if (i != first && lb[i] - kSlackMs <= out.rank.key) cost(i);
    return out;
  }

  // A wide spread of ages (ASATF, long queue): the age term can outweigh any access
  // time, so the oldest requests are costed first, oldest first. The walk ends when
  // nothing younger can rank first (done), or when what is left could only win close
  // to the head (its largest age bonus, `cap`, leaves a search radius below the
  // nearest other band), or after kWalkMax requests; the cell search then covers the
  // younger rest, with every age bound capped at the first request not walked.
  double clamp_arrival = -std::numeric_limits<double>::infinity();
  Rank frontier;  // requests at or before this in (arrival, id) order are done
  // Walking pays while consecutive arrivals differ by a sizeable age bonus (each step
  // then shrinks the cell search's radius); with dense arrivals it does not.
  if (aged && q.beta * (order_.back().arrival - order_[order_head_].arrival) >
                  walk_gap_ * static_cast<double>(count_)) {
    const double first = order_[order_head_].arrival;
    std::size_t walked = 0;
    std::size_t i = order_head_;
    for (; i < order_.size(); ++i) {
      const AgeEntry& e = order_[i];
      if (stale(e)) continue;
      const double cap = q.beta * (q.now - e.arrival);
      if (min_overhead_ - cap - kSlackMs > out.rank.key) return out;
      if (walked >= kWalkMax ||
          (walked % 16 == 15 &&
           q.beta * (e.arrival - first) < walk_gap_ * static_cast<double>(walked)) ||
          (out.rank.found && out.rank.key + cap - min_overhead_ < near_seek_)) {
        clamp_arrival = e.arrival;
        break;
      }
      if (!window || (e.cylinder >= lo && e.cylinder <= hi)) {
        const Millis bound = own_bound(e.cylinder, e.angle, e.overhead);
        if (bound - cap - kSlackMs <= out.rank.key) consider_bounded(slots_[e.slot], bound);
      }
      frontier = Rank{0.0, e.arrival, e.id, true};
      ++walked;
    }
    stats_.walked = walked;
    if (i == order_.size()) return out;  // every request costed
  }
  auto oldest = [&](double a) { return a > clamp_arrival ? a : clamp_arrival; };
  const double max_bonus = aged ? q.beta * (q.now - oldest(order_[order_head_].arrival)) : 0.0;

  const std::int32_t blo = static_cast<std::int32_t>(lo / W_);
  const std::int32_t bhi = static_cast<std::int32_t>(hi / W_);
  std::int32_t b0 = static_cast<std::int32_t>(c0 / W_);
  b0 = b0 < blo ? blo : (b0 > bhi ? bhi : b0);
  std::int32_t up = next_band(b0, bhi);
  std::int32_t dn = b0 > blo ? prev_band(b0 - 1, blo) : -1;
  constexpr Millis inf = std::numeric_limits<Millis>::infinity();
  while (up >= 0 || dn >= 0) {
    const Millis xu = up >= 0 ? seek_lb_[band_distance(up, c0)] : inf;
    const Millis xd = dn >= 0 ? seek_lb_[band_distance(dn, c0)] : inf;
    const bool go_up = xu <= xd;
    const std::int32_t b = go_up ? up : dn;
    const Millis base = min_overhead_ + (go_up ? xu : xd);
    // Lower bound on everything in this band and beyond it in this direction: bands
    // further out have seek bounds at least as large, and no age bonus exceeds the
    // oldest's (the first not walked).
    if (base - max_bonus - kSlackMs > out.rank.key) {
      (go_up ? up : dn) = -1;
      continue;
    }
    // The same for the rest of this band's group (kGroupBands bands) in this
    // direction, by the group's oldest arrival: skip the group when it cannot win.
    if (aged) {
      const std::int32_t g = b / kGroupBands;
      if (base - q.beta * (q.now - oldest(group_oldest_[g])) - kSlackMs > out.rank.key) {
        ++stats_.groups_skipped;
        if (go_up) {
          const std::int32_t next = (g + 1) * kGroupBands;
          up = next <= bhi ? next_band(next, bhi) : -1;
        } else {
          const std::int32_t prev = g * kGroupBands - 1;
          dn = prev >= blo ? prev_band(prev, blo) : -1;
        }
        continue;
      }
    }
    ++stats_.bands;
    const double band_bonus = aged ? q.beta * (q.now - oldest(band_oldest_[b])) : 0.0;
    if (base - band_bonus - kSlackMs <= out.rank.key) {
      // Cells of this band in the order the platter brings them under the head once
      // it can be on this band at the earliest (time base).
      // phi: the angle under the head at time base. The first cell is the one holding
      // phi - kPhiBack, so a request a rounding error behind phi counts as reachable
      // at once rather than a rotation later.
      const double phi = frac(a0 + base * inv_T);
      int k0 = static_cast<int>(frac(phi - kPhiBack) * kBuckets);
      if (k0 >= kBuckets) k0 = kBuckets - 1;
      std::uint64_t m = std::rotr(band_mask_[b], k0);
      while (m != 0) {
        const int j = std::countr_zero(m);
        m &= m - 1;
        const int k = (k0 + j) & (kBuckets - 1);
        // Rotations from phi to the cell's first angle; >= 1 only when k0 is the last
        // cell because phi - kPhiBack wrapped below 0.
        double ahead = (k0 + j) * (1.0 / kBuckets) - phi;
        if (ahead >= 1.0 - kPhiBack) ahead -= 1.0;
        const Millis lb_pos = j == 0 || ahead <= 0.0 ? base : base + ahead * T_;
        if (lb_pos - band_bonus - kSlackMs > out.rank.key) break;  // later cells only worse
        const std::int32_t cell = b * kBuckets + k;
        if (aged && lb_pos - q.beta * (q.now - oldest(cell_oldest_[cell])) - kSlackMs >
                        out.rank.key)
          continue;
        ++stats_.cells;
        for (std::int32_t si = cell_head_[cell]; si >= 0; si = slots_[si].next) {
          const Slot& s = slots_[si];
          if (frontier.found && !before(frontier, Rank{0.0, s.req.arrival_ms, s.req.id, true}))
            continue;  // costed by the oldest-first pass
          consider(s);
        }
      }
    }
    if (go_up)
      up = up < bhi ? next_band(up + 1, bhi) : -1;
    else
      dn = dn > blo ? prev_band(dn - 1, blo) : -1;
  }
  return out;
}

}  // namespace disksched::rotational
