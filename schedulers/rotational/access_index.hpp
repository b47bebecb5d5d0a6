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
// The MEMS device (predictor/mems) has no rotation, but the same search works on its
// x columns alone: positioning = overhead + max(t_x, t_y) >= overhead + t_x, and an x
// move of d columns is fastest centred on the sled (the springs then help both the
// acceleration and the braking: in the sled's phase-plane form the arcsine argument
// d (d + 4c) / (4 (c - lo)(c + hi)) is smallest at lo = -d/2), which is exactly
// MemsModel::seek_ms(d). So seek_lb bounds t_x, and bands of columns are searched
// outward from the head with one cell per band (no angle). t_y has no bound here:
// it depends on the direction and turnarounds, and the settle time every x move
// pays (0.215 ms on the G2) already makes the x bound prune all but a few columns.
// tests/schedulers/rotational/test_access_index.cpp checks the bound on every pair of columns.
//
// Three regimes, all exact (tests/schedulers/rotational/test_access_index.cpp compares each with
// an exhaustive scan on hp97560, hp97560-full and mems):
//  - up to kLinearMax requests: no grid at all; one pass computes every request's own
//    bound from a compact array (32 bytes a request, no virtual call, no branch per
//    request) and costs only the requests whose bound can still rank first, the
//    smallest bound first (usually the only one costed);
//  - longer queues: the cell grid above;
//  - ASATF with ages spread wide (consecutive arrivals differing by a sizeable age
//    bonus): the age term can outweigh any access time, so the oldest requests are
//    costed first from an arrival-ordered array, until what is left could only win in
//    the bands near the head (about kCellTarget requests); the cell search covers the
//    rest with every age bound capped at the first request not walked; bands are
//    grouped (kGroupBands) with the group's oldest arrival so whole groups are skipped.
//
// On any other model (fixed) the bounds do not hold, so the index falls back to an
// exhaustive scan there (cell_search() == false).
//
// The rotation period and phase come with each query (the head's spin): when the period
// differs from the last query's, best() converts the bounds to it first. Locations are
// the caller's: when a track's angle is learnt, relocate() the requests on it.
//
// One index belongs to one scheduler: best() records last_stats(), so it is not for
// concurrent use.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
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
  // Queues this short are searched by every request's own bound in one pass: cheaper
  // than the grid at this size, whose walk and bands cost ~3 requests a pick where the
  // pass costs ~1 (bench_sim: ASATF(30) at queue 50 1.76 M/s against 0.94 M/s at 24).
  static constexpr std::size_t kLinearMax = 64;
  static constexpr std::size_t kGridOff = kLinearMax / 2;  // grid dropped below this
  // ASATF: the oldest requests are searched first (see best()), at most kWalkMax of
  // them, when consecutive arrivals differ on average by more than this part of the
  // access-time scale (a rotation; on MEMS the full-stroke seek) in age bonus.
  static constexpr double kWalkGapScale = 0.002;
  static constexpr std::size_t kWalkMax = 96;
  // ... and until what is left could only win in bands holding about this many.
  static constexpr double kCellTarget = 16.0;

  // `track_age`: keep each cell's and band's oldest arrival, needed when the key has an
  // age term (beta > 0) and by oldest_arrival().
  AccessIndex(const DeviceModel& model, bool track_age);

  // Adds a request; its id must not be held (throws std::invalid_argument).
  void insert(const Request& r);
  // Removes and returns the request with this id; nullopt when not held.
  std::optional<Request> erase(std::uint64_t id);
  // Removes and returns a held request, found by best() or find() (no id look-up).
  std::optional<Request> take(const Request* held) {
    static_assert(std::is_standard_layout_v<Slot> && offsetof(Slot, req) == 0);
    return erase_slot(static_cast<std::int32_t>(reinterpret_cast<const Slot*>(held) - slots_.data()));
  }
  // The held request with r's id now lies at r.loc (its track's angle was learnt); it
  // keeps its arrival and sequence number. False when not held.
  bool relocate(const Request& r);
  const Request* find(std::uint64_t id) const;
  bool contains(std::uint64_t id) const { return slot_of_id(id) != IdMap::kAbsent; }
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
  // No choice yet: the query's initial rank, copied field by field (the caller has just
  // built q with narrower stores, and one wide copy of the whole rank would wait for
  // them: a store-forwarding stall).
  static Choice initial_choice(const Query& q) {
    Choice out;
    out.rank.key = q.initial.key;
    out.rank.arrival = q.initial.arrival;
    out.rank.id = q.initial.id;
    out.rank.found = q.initial.found;
    return out;
  }

  // The held request of smallest rank (key, then arrival, then id) among those
  // `accept(req, seq, positioning_ms)` admits. `accept` is asked only about a request
  // that would otherwise become the best so far, so it may be expensive; it must be a
  // pure function of the request for the result to be exact.
  template <class Accept = NoFilter>
  Choice best(const Query& q, Accept&& accept = Accept{});

  // The same choice by an exhaustive scan of every held request (the reference the
  // fast search is tested against, and the method on models without bounds).
  template <class Accept = NoFilter>
  Choice best_scan(const Query& q, Accept&& accept = Accept{});

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

  // What a request's own bound needs, in the index's bound unit (rotations on a disk,
  // ms on MEMS; unit_ms_ converts): one 32-byte record, so the short-queue pass and
  // the oldest-first walk stream through memory and call nothing virtual.
  //
  // Angles are fixed point, 2^32 to the rotation, so "mod one rotation" is the free
  // wrap-around of unsigned arithmetic. Each of the three angles in a bound (the
  // request's phase, the head's angle and the seek's fraction of a rotation) is off
  // by less than 2^-32 of a rotation, and `overhead` is stored kFixedSlack lower to
  // cover their sum. A wait within kPhiBack of a whole rotation must count as none, so
  // an angle that wraps by a rounding error costs nothing: the phase is stored
  // kPhiBackFixed ahead and the overhead as much lower, which turns such a wait into
  // one of at most 0 (and every other wait into itself) without a comparison.
  //
  // Every term of a bound is also a multiple of kFixedGrain (phase, seek: rounded
  // down; the head's angle: rounded up, so the wait can only shrink), which leaves the
  // low bits of the short pass's keys free for the request's position (see lead_).
  static constexpr double kFixedOne = 4294967296.0;      // 2^32
  static constexpr double kFixedSlack = 4.0 / kFixedOne;  // rotations
  static constexpr std::uint32_t kFixedGrain = 64;
  static constexpr std::uint32_t kGrainMask = ~(kFixedGrain - 1);
  static constexpr std::uint32_t kPhiBackFixed =
      static_cast<std::uint32_t>(kPhiBack * kFixedOne) + 2 * kFixedGrain;
  static std::uint32_t to_fixed(double rotations) {
    return static_cast<std::uint32_t>(
        static_cast<std::uint64_t>(static_cast<std::int64_t>(frac(rotations) * kFixedOne)));
  }
  struct Probe {
    std::uint32_t phase;    // disk: start angle less the overhead, fixed point,
                            // plus kPhiBackFixed
    std::int32_t cylinder;  // clamped to [0, C)
    double overhead;        // command overhead (disk: less kFixedSlack and kPhiBackFixed)
  };
  struct Hot {
    Probe p;
    Millis arrival;
    std::int32_t slot;
  };
  // The arrival order (track_age): sorted by (arrival, id), erased entries left in
  // place until compaction (an entry is stale when its slot's generation moved on).
  struct AgeEntry {
    Millis arrival;
    std::uint64_t id;
    Probe p;
    std::int32_t slot;
    std::uint32_t gen;
  };
  bool stale(const AgeEntry& e) const { return slot_gen_[e.slot] != e.gen; }
  // The seek lower bound for one distance in fixed point, 2^32 to the bound unit,
  // rounded down, in 8 bytes so the table of a whole disk stays small in the cache.
  // On a disk its low 32 bits are the seek's fraction of a rotation, so the wait for
  // a request's angle is one 32-bit subtraction from it, and seek plus wait one sum.
  using SeekBound = std::uint64_t;
  // Converts the rotation-dependent state to a new period (see T_).
  void sync_rotation(Millis period);
  void set_units(Millis period);
  void set_probe(Probe& p, const Location& l) const {
    const double overhead = l.overhead_ms * inv_unit_;
    p.phase = rot_ ? (to_fixed(l.angle - overhead) + kPhiBackFixed) & kGrainMask : 0u;
    p.cylinder = static_cast<std::int32_t>(clamp_cyl(l.cylinder));
    p.overhead = rot_ ? overhead - kFixedSlack - kPhiBackFixed / kFixedOne : overhead;
  }

  // The head at one query, as every own bound needs it.
  struct Head {
    std::int32_t c0;             // head cylinder, clamped
    std::uint32_t a0;            // disk: platter angle at the head's time, fixed point
    const SeekBound* seek;       // coarse: seek_u_ by seek_slot(); else centred on c0
    std::int32_t exact;          // seek_exact_
    std::int32_t shift;          // seek_shift_
    bool coarse;                 // seek_coarse_
  };
  // A disk of at most kSeekExact cylinders: seek_u_ holds the bound of every signed
  // distance from -(C - 1) to C - 1, so a bound reads the entry at the request's
  // cylinder from a pointer centred on the head's (no distance, no slot to compute).
  // Beyond that (seek_coarse_), seek_u_ holds every distance below kSeekExact, and
  // beyond it one entry per 2^shift distances, the bound at the shortest of them
  // (seek_lb_ does not decrease, so it bounds them all): a drive of today has ~500,000
  // cylinders, and a table that size misses the cache on every own bound. A
  // 474,517-cylinder table so shrinks from 3.8 MB to 96 KB; the looser bound costs at
  // most the seek over 2^shift cylinders.
  static constexpr std::int32_t kSeekExact = 8192;
  static constexpr std::int32_t kSeekCoarse = 4096;  // entries beyond, at most
  static std::int32_t seek_slot(std::int32_t d, std::int32_t exact, std::int32_t shift) {
    return d < exact ? d : exact + ((d - exact) >> shift);
  }
  // A request's own lower bound on its positioning time, in the bound unit (see the
  // top of this file): overhead + seek bound, then (disk) the wait for its angle.
  // Seek plus wait of the bound, fixed point (2^32 to the unit).
  template <bool Rot, bool Coarse>
  static std::uint64_t own_fixed(const Head& h, const Probe& p) {
    const SeekBound* bp;
    if constexpr (Coarse) {
      const std::int32_t d = p.cylinder > h.c0 ? p.cylinder - h.c0 : h.c0 - p.cylinder;
      bp = &h.seek[seek_slot(d, h.exact, h.shift)];
    } else {
      bp = &h.seek[static_cast<std::uint32_t>(p.cylinder)];
    }
    std::uint64_t t = *bp;
    if constexpr (Rot) t += static_cast<std::uint32_t>(p.phase - h.a0 - static_cast<std::uint32_t>(t));
    return t;
  }
  template <bool Rot>
  static double own_bound(const Head& h, const Probe& p) {
    const std::uint64_t t = h.coarse ? own_fixed<Rot, true>(h, p) : own_fixed<Rot, false>(h, p);
    return p.overhead + static_cast<double>(static_cast<std::int64_t>(t)) * (1.0 / kFixedOne);
  }

  // The short pass's bound of hot_[j] in the bound unit is lead + seek + wait, with
  //   lead = overhead + (lead_beta_ / unit) * (arrival - lead_ref_),
  // so its key bound in ms is that times the unit less lead_beta_ * (now - lead_ref_):
  // the age term costs nothing per request. The leads are recomputed when the query's
  // beta differs or its `now` has moved far from lead_ref_ (which keeps the rounding
  // of the two large products small against kSlackMs; lead_ms() allows for it too).
  // lead_[j] holds the lead in fixed point (2^32 to the unit) rounded down to a multiple
  // of kFixedGrain, plus j: the whole key is one integer sum whose low bits say where
  // its request is (n <= kLinearMax <= kFixedGrain). A lead beyond +-kLeadMax (a bonus
  // of 2^29 rotations) is held as -kLeadMax, lower, which is still a bound and cannot
  // overflow.
  static constexpr double kLeadRebaseMs = 1000.0;  // largest lead_beta_ * |now - lead_ref_|
  static constexpr std::int64_t kLeadMax = std::int64_t{1} << 61;
  std::int64_t lead_of(const Hot& h) const {
    const double lead = lead_beta_ == 0.0
                            ? h.p.overhead
                            : h.p.overhead + lead_beta_u_ * (h.arrival - lead_ref_);
    const double x = lead * kFixedOne;
    if (!(std::abs(x) < static_cast<double>(kLeadMax))) return -kLeadMax;  // NaN too
    const auto f = static_cast<std::int64_t>(x);  // towards 0: down for x >= 0
    return static_cast<double>(f) > x ? f - 1 : f;
  }
  void set_lead(std::size_t j) {
    lead_[j] = (lead_of(hot_[j]) & ~std::int64_t{kFixedGrain - 1}) | static_cast<std::int64_t>(j);
  }
  void set_leads(double beta, Millis ref);
  // Adds key k to the smallest (m) and second smallest (s) so far. The larger of m and
  // k is their sum less the smaller, in wrapping arithmetic (exact, as the result
  // fits), so the compiler sees only minimums, which it makes conditional moves: a
  // max here became a branch that random keys mispredicted about 4 times a pick.
  static void add_key(std::int64_t k, std::int64_t& m, std::int64_t& s) {
    const std::int64_t lo = k < m ? k : m;
    const auto hi = static_cast<std::int64_t>(static_cast<std::uint64_t>(m) +
                                              static_cast<std::uint64_t>(k) -
                                              static_cast<std::uint64_t>(lo));
    s = hi < s ? hi : s;
    m = lo;
  }
  // A short-pass bound in ms, lowered by a part in 2^40 of its terms (the rounding of
  // lead_ and of the conversion; kSlackMs then covers what the old form covered).
  double lead_ms(double u, double shift) const {
    const double ms = u * unit_ms_;
    return ms - shift - (std::abs(ms) + std::abs(shift)) * 0x1p-40;
  }

  // The head at a query (c0: its cylinder, clamped).
  template <bool Rot>
  Head head_of(const Query& q, const Spin& spin, std::int64_t c0) const;
  // The grid search (a long queue), and the short one's entry (no grid).
  template <bool Rot, bool Aged, class Accept>
  Choice search(const Query& q, const Spin& spin, Accept& accept);
  template <bool Rot, bool Aged, class Accept>
  Choice short_best(const Query& q, const Spin& spin, Accept& accept);
  template <bool Rot, bool Aged, bool Coarse, bool Window, class Accept>
  Choice short_search(const Query& q, const Head& head, std::int64_t lo, std::int64_t hi,
                      Accept& accept);

  // The slot holding this id, or IdMap::kAbsent.
  std::int32_t slot_of_id(std::uint64_t id) const {
    if (ids_mapped_) return slot_of_.find(id);
    for (std::size_t j = 0; j < ids_.size(); ++j)
      if (ids_[j] == id) return hot_[j].slot;
    return IdMap::kAbsent;
  }
  // Removes and returns the request in a live slot (always engaged: an optional, so
  // that the request is built in place in the caller's).
  std::optional<Request> erase_slot(std::int32_t si);
  [[noreturn]] static void throw_held(std::uint64_t id);
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
    if (!rot_) return 0;  // MEMS: one cell per band
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
  // The distinct command overheads held, with counts (for min_overhead_); nearly
  // always one or two, so the common case is the first entry.
  void add_overhead(Millis o) {
    if (!overheads_.empty() && overheads_.front().first == o)
      ++overheads_.front().second;
    else
      add_new_overhead(o);
  }
  void remove_overhead(Millis o) {
    if (overheads_.front().first == o && overheads_.front().second > 1)
      --overheads_.front().second;
    else
      remove_other_overhead(o);
  }
  void add_new_overhead(Millis o);
  void remove_other_overhead(Millis o);

  const DeviceModel& model_;
  Spin model_spin_;          // model_.spin(), for a query whose head gives none
  bool track_age_;
  bool cells_ = false;       // the bounds hold (a disk, or MEMS): fast search
  bool rot_ = false;         // a rotating disk (angle buckets and waits)
  bool grid_on_ = false;     // the grid is built (long queue)
  std::int64_t C_ = 1;       // cylinders
  std::int64_t W_ = 1;       // band width in cylinders
  std::int32_t B_ = 1;       // bands
  // The rotation period the bounds were computed for, and what depends on it. The
  // period comes with each query (the head's spin; the daemon's head tracker refines
  // it while requests are held), so best() compares and, when it moved, converts
  // everything again (sync_rotation).
  Millis T_ = 0.0;           // rotation period
  Millis unit_ms_ = 1.0;     // ms per bound unit: T_ on a disk, 1 on MEMS
  double inv_unit_ = 1.0;

  std::vector<Slot> slots_;
  // Per slot, bumped at every insert and erase: odd while live. Kept apart from the
  // slots so the oldest-first walk checks staleness in a small array.
  std::vector<std::uint32_t> slot_gen_;
  std::vector<Hot> hot_;                    // every live request, densely
  std::vector<std::int64_t> lead_;          // per hot_ entry, see lead_of()
  double lead_beta_ = 0.0, lead_beta_u_ = 0.0;  // beta, and beta per bound unit
  Millis lead_ref_ = 0.0;
  std::vector<std::int32_t> free_;
  std::vector<AgeEntry> order_;             // track_age: arrival order, from order_head_
  std::size_t order_head_ = 0;
  std::size_t order_stale_ = 0;
  Millis walk_gap_ = 0.0;                   // kWalkGapScale * the access-time scale
  Millis near_seek_ = 0.0;                  // seek_lb_[1]: the nearest other band
  // Id -> slot. A short queue (ids_mapped_ false) finds an id in ids_ instead, which
  // costs a pick nothing: the map's insert and erase cost about 80 instructions and a
  // mispredicted probe a pick.
  IdMap slot_of_;
  bool ids_mapped_ = false;
  std::vector<std::uint64_t> ids_;          // per hot_ entry, its request's id
  // How many held ids end in each 6-bit value: an insert looks for its id in ids_
  // only when one does (rarely, as ids held at once are mostly close together).
  std::array<std::uint32_t, 64> id_tails_{};
  std::size_t count_ = 0;
  std::uint64_t next_seq_ = 0;

  // The grid: empty until the first grid_build().
  std::vector<std::int32_t> cell_head_;     // B_ * kBuckets list heads
  std::vector<std::uint64_t> band_mask_;    // non-empty cells of each band
  std::vector<std::uint64_t> band_bits_;    // non-empty bands
  std::vector<double> cell_oldest_;         // track_age: oldest arrival per cell
  std::vector<double> band_oldest_;         // track_age: oldest arrival per band
  std::vector<double> group_oldest_;        // track_age: ... per kGroupBands bands
  std::vector<Millis> seek_lb_;             // C_ entries, non-decreasing, ms
  std::vector<SeekBound> seek_u_;           // seek_lb_ for the bounds, by seek_slot()
  std::int32_t seek_exact_ = 0, seek_shift_ = 0;
  bool seek_coarse_ = false;
  std::vector<std::pair<Millis, std::size_t>> overheads_;  // distinct overheads, counts
  Millis min_overhead_ = 0.0;
  Stats stats_;
};

template <class Accept>
AccessIndex::Choice AccessIndex::best_scan(const Query& q, Accept&& accept) {
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
AccessIndex::Choice AccessIndex::best(const Query& q, Accept&& accept) {
  // Without the per-cell ages an age term cannot be bounded: scan (not used so).
  if (!cells_ || (q.beta > 0.0 && !track_age_)) return best_scan(q, accept);
  // The model's own spin is kept (the model is immutable): no virtual call a pick.
  const Spin& spin = q.head.spin.given() || !rot_ ? q.head.spin : model_spin_;
  if (rot_ && spin.period_ms != T_) sync_rotation(spin.period_ms);
  // A short queue has its own lean path (no grid search's frame to set up).
  if (!grid_on_) {
    if (q.beta > 0.0)
      return rot_ ? short_best<true, true>(q, spin, accept) : short_best<false, true>(q, spin, accept);
    return rot_ ? short_best<true, false>(q, spin, accept) : short_best<false, false>(q, spin, accept);
  }
  if (q.beta > 0.0)
    return rot_ ? search<true, true>(q, spin, accept) : search<false, true>(q, spin, accept);
  return rot_ ? search<true, false>(q, spin, accept) : search<false, false>(q, spin, accept);
}

template <bool Rot>
AccessIndex::Head AccessIndex::head_of(const Query& q, const Spin& spin, std::int64_t c0) const {
  Head head;
  head.c0 = static_cast<std::int32_t>(c0);
  const double a0 = Rot ? spin.angle_at(q.head.time_ms) : 0.0;
  head.a0 = Rot ? (to_fixed(a0) + (kFixedGrain - 1)) & kGrainMask : 0u;
  head.coarse = seek_coarse_;
  head.seek = seek_coarse_ ? seek_u_.data() : seek_u_.data() + (C_ - 1 - c0);
  head.exact = seek_exact_;
  head.shift = seek_shift_;
  return head;
}

template <bool Rot, bool Aged, class Accept>
AccessIndex::Choice AccessIndex::short_best(const Query& q, const Spin& spin, Accept& accept) {
  const std::int64_t lo = q.cyl_lo < 0 ? 0 : q.cyl_lo;
  const std::int64_t hi = q.cyl_hi > C_ - 1 ? C_ - 1 : q.cyl_hi;
  if (count_ == 0 || lo > hi) {
    stats_ = Stats{};
    return initial_choice(q);
  }
  const Head head = head_of<Rot>(q, spin, clamp_cyl(q.head.cylinder));
  if (lo > 0 || hi < C_ - 1)
    return seek_coarse_ ? short_search<Rot, Aged, true, true>(q, head, lo, hi, accept)
                        : short_search<Rot, Aged, false, true>(q, head, lo, hi, accept);
  return seek_coarse_ ? short_search<Rot, Aged, true, false>(q, head, lo, hi, accept)
                      : short_search<Rot, Aged, false, false>(q, head, lo, hi, accept);
}

template <bool Rot, bool Aged, class Accept>
AccessIndex::Choice AccessIndex::search(const Query& q, const Spin& spin, Accept& accept) {
  Choice out = initial_choice(q);
  Stats st;
  if (count_ == 0) {
    stats_ = st;
    return out;
  }
  const std::int64_t lo = q.cyl_lo < 0 ? 0 : q.cyl_lo;
  const std::int64_t hi = q.cyl_hi > C_ - 1 ? C_ - 1 : q.cyl_hi;
  if (lo > hi) {
    stats_ = st;
    return out;
  }
  const bool window = lo > 0 || hi < C_ - 1;
  const std::int64_t c0 = clamp_cyl(q.head.cylinder);
  const Head head = head_of<Rot>(q, spin, c0);
  const double a0 = Rot ? spin.angle_at(q.head.time_ms) : 0.0;
  const double unit = unit_ms_;
  const double beta = q.beta, now = q.now;
  auto bonus_of = [&](Millis arrival) { return Aged ? beta * (now - arrival) : 0.0; };
  // Costs one held request exactly; the key and tie rule are best_scan's.
  auto cost = [&](const Slot& s) {
    const Millis pos = model_.positioning_ms(q.head, s.req.loc);
    ++st.costed;
    const Rank cand = Rank::of(Aged ? pos - bonus_of(s.req.arrival_ms) : pos, s.req);
    if (before(cand, out.rank) && accept(s.req, s.seq, pos)) out = Choice{cand, pos, &s.req};
  };
  auto in_window = [&](std::int32_t cyl) { return !window || (cyl >= lo && cyl <= hi); };

  // Costs a request unless its own bound (ms, bonus included) shows it cannot win.
  auto consider_bounded = [&](const Slot& s, Millis bound_less_bonus) {
    ++st.bounded;
    if (bound_less_bonus - kSlackMs <= out.rank.key) cost(s);
  };

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
  if (Aged && beta * (order_.back().arrival - order_[order_head_].arrival) >
                  walk_gap_ * static_cast<double>(count_)) {
    const double first = order_[order_head_].arrival;
    const AgeEntry* const entries = order_.data();
    const std::size_t end = order_.size();
    std::size_t walked = 0;
    std::size_t i = order_head_;
    std::size_t last = end;  // the last entry walked
    // The stopping rules below, as an arrival threshold (the age bonus falls along
    // the walk), so a step costs one comparison until one may hold; they are then
    // checked as written. `reach`: the largest bound that can still rank first.
    // Both change only when the best does.
    double stop_after = 0.0, reach = 0.0;
    // Walk until what is left could only win within a radius whose bands hold about
    // kCellTarget requests: the cell search covers those more cheaply than walking on.
    const double per_band = static_cast<double>(count_) / static_cast<double>(B_);
    const std::int64_t radius = std::min<std::int64_t>(
        C_ - 1, W_ * static_cast<std::int64_t>(kCellTarget / (2.0 * per_band)));
    const Millis near_seek = std::max(near_seek_, seek_lb_[radius]);
    auto thresholds = [&] {
      // Done: min_overhead_ - cap - kSlackMs > best. Near: best + cap - min_overhead_
      // < near_seek_. (Infinite when nothing is found yet.)
      const double done = now - (min_overhead_ - kSlackMs - out.rank.key) / beta;
      const double near = out.rank.found
                              ? now - (near_seek + min_overhead_ - out.rank.key) / beta
                              : std::numeric_limits<double>::infinity();
      // Both lowered by a part in 1e9 of their size, so rounding here can only make
      // the exact check below run early, never late.
      const double lowest = std::min(done, near);
      stop_after = lowest < std::numeric_limits<double>::infinity()
                       ? lowest - 1e-9 * std::abs(lowest) - 1e-9
                       : lowest;
      reach = out.rank.key + kSlackMs;
    };
    thresholds();
    for (; i < end; ++i) {
      const AgeEntry& e = entries[i];
      if (stale(e)) continue;
      if (e.arrival > stop_after || walked >= kWalkMax ||
          ((walked & 15) == 15 &&
           beta * (e.arrival - first) < walk_gap_ * static_cast<double>(walked))) {
        const double cap = beta * (now - e.arrival);
        if (min_overhead_ - cap - kSlackMs > out.rank.key) {
          st.walked = walked;
          stats_ = st;
          return out;
        }
        if (walked >= kWalkMax ||
            ((walked & 15) == 15 &&
             beta * (e.arrival - first) < walk_gap_ * static_cast<double>(walked)) ||
            (out.rank.found && out.rank.key + cap - min_overhead_ < near_seek)) {
          clamp_arrival = e.arrival;
          break;
        }
      }
      if (in_window(e.p.cylinder)) {
        const Millis bound = own_bound<Rot>(head, e.p) * unit - beta * (now - e.arrival);
        if (bound <= reach) {
          const Rank was = out.rank;
          consider_bounded(slots_[e.slot], bound);
          if (out.rank.key != was.key || out.rank.found != was.found) thresholds();
        }
      }
      last = i;
      ++walked;
    }
    st.walked = walked;
    if (i == end) {  // every request costed
      stats_ = st;
      return out;
    }
    if (last != end) frontier = Rank{0.0, entries[last].arrival, entries[last].id, true};
  }
  auto oldest = [&](double a) { return a > clamp_arrival ? a : clamp_arrival; };
  const double max_bonus = Aged ? bonus_of(oldest(order_[order_head_].arrival)) : 0.0;

  const std::int32_t blo = static_cast<std::int32_t>(lo / W_);
  const std::int32_t bhi = static_cast<std::int32_t>(hi / W_);
  std::int32_t b0 = static_cast<std::int32_t>(c0 / W_);
  b0 = b0 < blo ? blo : (b0 > bhi ? bhi : b0);
  std::int32_t up = next_band(b0, bhi);
  std::int32_t dn = b0 > blo ? prev_band(b0 - 1, blo) : -1;
  constexpr Millis inf = std::numeric_limits<Millis>::infinity();
  const double inv_T = Rot ? 1.0 / T_ : 0.0;
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
    if (Aged) {
      const std::int32_t g = b / kGroupBands;
      if (base - bonus_of(oldest(group_oldest_[g])) - kSlackMs > out.rank.key) {
        ++st.groups_skipped;
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
    ++st.bands;
    const double band_bonus = Aged ? bonus_of(oldest(band_oldest_[b])) : 0.0;
    if (base - band_bonus - kSlackMs <= out.rank.key) {
      // Cells of this band in the order the platter brings them under the head once
      // it can be on this band at the earliest (time base).
      // phi: the angle under the head at time base. The first cell is the one holding
      // phi - kPhiBack, so a request a rounding error behind phi counts as reachable
      // at once rather than a rotation later. MEMS: the one cell, bucket 0.
      const double phi = Rot ? frac(a0 + base * inv_T) : 0.0;
      int k0 = Rot ? static_cast<int>(frac(phi - kPhiBack) * kBuckets) : 0;
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
        if (Aged && lb_pos - bonus_of(oldest(cell_oldest_[cell])) - kSlackMs > out.rank.key)
          continue;
        ++st.cells;
        for (std::int32_t si = cell_head_[cell]; si >= 0; si = slots_[si].next) {
          const Slot& s = slots_[si];
          if (Aged && frontier.found &&
              !before(frontier, Rank{0.0, s.req.arrival_ms, s.req.id, true}))
            continue;  // costed by the oldest-first pass
          const Hot& h = hot_[s.hot];
          if (!in_window(h.p.cylinder)) continue;
          consider_bounded(s, own_bound<Rot>(head, h.p) * unit - bonus_of(h.arrival));
        }
      }
    }
    if (go_up)
      up = up < bhi ? next_band(up + 1, bhi) : -1;
    else
      dn = dn > blo ? prev_band(dn - 1, blo) : -1;
  }
  stats_ = st;
  return out;
}


// Short queues (no grid): every request's own bound from the compact array and its
// lead (the age term folded in); the exact cost only where the bound can still rank
// first, the smallest bound first.
template <bool Rot, bool Aged, bool Coarse, bool Window, class Accept>
AccessIndex::Choice AccessIndex::short_search(const Query& q, const Head& head,
                                              std::int64_t lo, std::int64_t hi,
                                              Accept& accept) {
  Choice out = initial_choice(q);  // a local, returned in place
  Stats st;
  const double beta = q.beta, now = q.now;
  // Costs one held request exactly; the key and tie rule are best_scan's.
  auto cost = [&](const Slot& s) {
    const Millis pos = model_.positioning_ms(q.head, s.req.loc);
    ++st.costed;
    const Rank cand = Rank::of(Aged ? pos - beta * (now - s.req.arrival_ms) : pos, s.req);
    if (before(cand, out.rank) && accept(s.req, s.seq, pos)) out = Choice{cand, pos, &s.req};
  };
  auto in_window = [&](std::int32_t cyl) { return cyl >= lo && cyl <= hi; };
  const double want = Aged ? beta : 0.0;
  if (want != lead_beta_ || (Aged && std::abs(beta * (now - lead_ref_)) > kLeadRebaseMs))
    set_leads(want, now);
  // What every bound in ms loses to the age term since lead_ref_.
  const double shift = Aged ? lead_beta_ * (now - lead_ref_) : 0.0;
  const std::size_t n = hot_.size();
  const Hot* const hot = hot_.data();
  const std::int64_t* const lead = lead_.data();
  // Each request's bound as one integer key, its position in the low bits (see
  // lead_), so the smallest key is both the least bound and where it is, and no two
  // keys tie. kNone: outside the window.
  static_assert(kLinearMax <= kFixedGrain);
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  auto key_of = [&](std::size_t j) {
    if (Window && !in_window(hot[j].p.cylinder)) return kNone;
    return lead[j] + static_cast<std::int64_t>(own_fixed<Rot, Coarse>(head, hot[j].p));
  };
  // The key's bound in ms (lowered for rounding, see lead_ms).
  auto key_ms = [&](std::int64_t k) {
    return lead_ms(static_cast<double>(k & ~std::int64_t{kFixedGrain - 1}) * (1.0 / kFixedOne),
                   shift);
  };
  // The smallest key and the second smallest (which tells whether any other request
  // can still win once the smallest is costed), in two independent chains (even and
  // odd j) beside the keys, without a branch (see add_key).
  std::int64_t m0 = kNone, m1 = kNone, s0 = kNone, s1 = kNone;
  auto add0 = [&](std::int64_t k) { add_key(k, m0, s0); };
  auto add1 = [&](std::int64_t k) { add_key(k, m1, s1); };
  // Four keys a step (the loop's own instructions are a fifth of a short one's).
  std::size_t j4 = 0;
  for (; j4 + 4 <= n; j4 += 4) {
    const std::int64_t k0 = key_of(j4), k1 = key_of(j4 + 1);
    const std::int64_t k2 = key_of(j4 + 2), k3 = key_of(j4 + 3);
    add0(k0);
    add1(k1);
    add0(k2);
    add1(k3);
  }
  for (; j4 < n; ++j4) add0(key_of(j4));
  st.bounded = n;
  add_key(m1, m0, s0);  // the two chains as one: m0 the least, s0 the second
  const std::int64_t least = m0;
  const std::int64_t second = s1 < s0 ? s1 : s0;
  if (least != kNone && key_ms(least) - kSlackMs <= out.rank.key) {
    const std::size_t first = static_cast<std::size_t>(least & (kFixedGrain - 1));
    cost(slots_[hot[first].slot]);
    // Every other request whose bound still reaches the best (rarely any: the
    // second smallest key says whether there is one).
    if (second != kNone && key_ms(second) <= out.rank.key + kSlackMs) {
      for (std::size_t j = 0; j < n; ++j) {
        if (j == first) continue;
        const std::int64_t k = key_of(j);
        if (k != kNone && key_ms(k) <= out.rank.key + kSlackMs) cost(slots_[hot[j].slot]);
      }
    }
  }
  stats_ = st;
  return out;
}

}  // namespace disksched::rotational
