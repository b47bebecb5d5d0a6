#include "schedulers/rotational/access_index.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace disksched::rotational {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

AccessIndex::AccessIndex(const DeviceModel& model, bool track_age)
    : model_(model), model_spin_(model.spin()), track_age_(track_age) {
  T_ = model.rotation_ms();
  rot_ = model.kind() == "disk" && model.rotational() && T_ > 0.0;
  cells_ = (rot_ || model.kind() == "mems") && model.cylinders() > 0;
  if (!cells_) return;
  C_ = model.cylinders();
  W_ = std::max<std::int64_t>(1, (C_ + kMaxBands - 1) / kMaxBands);
  B_ = static_cast<std::int32_t>((C_ + W_ - 1) / W_);
  // The grid's arrays are allocated by the first grid_build(): most indexes never hold
  // more than kLinearMax requests, and filling ~400 KB per index (a simulator builds
  // one per replication) cost more than a few hundred picks.
  // seek_lb_[d] = min over d' >= d of seek_ms(d'): a non-decreasing lower bound.
  seek_lb_.resize(C_);
  Millis running = kInf;
  for (std::int64_t d = C_ - 1; d >= 0; --d) {
    running = std::min(running, model.seek_ms(d));
    seek_lb_[d] = std::max<Millis>(0.0, running);
  }
  near_seek_ = C_ > 1 ? seek_lb_[1] : 0.0;
  set_units(T_);
}

void AccessIndex::set_units(Millis period) {
  T_ = period;
  unit_ms_ = rot_ ? T_ : 1.0;
  inv_unit_ = 1.0 / unit_ms_;
  seek_exact_ = static_cast<std::int32_t>(std::min<std::int64_t>(C_, kSeekExact));
  seek_shift_ = 0;
  while (((C_ - seek_exact_) >> seek_shift_) > kSeekCoarse) ++seek_shift_;
  seek_coarse_ = C_ > kSeekExact;
  const std::int32_t slots = seek_slot(static_cast<std::int32_t>(C_ - 1), seek_exact_, seek_shift_) + 1;
  // Not coarse: the entry of distance i goes to C - 1 + i and C - 1 - i (see Head).
  const std::int32_t mid = seek_coarse_ ? 0 : static_cast<std::int32_t>(C_ - 1);
  seek_u_.resize(static_cast<std::size_t>(mid + slots));
  for (std::int32_t i = 0; i < slots; ++i) {
    // The shortest distance of the slot: the smallest bound of all of them.
    const std::int64_t d = i < seek_exact_
                               ? i
                               : seek_exact_ + (static_cast<std::int64_t>(i - seek_exact_) << seek_shift_);
    // u * 2^32 is exact (u >= 0); the conversion truncates, so rounds down.
    const double u = seek_lb_[d] * inv_unit_;
    const SeekBound b = static_cast<SeekBound>(u * kFixedOne) & ~SeekBound{kFixedGrain - 1};
    seek_u_[mid + i] = b;
    if (!seek_coarse_) seek_u_[mid - i] = b;
  }
  // The age gap at which walking the oldest first pays, against the spread of access
  // times: a rotation on a disk, the full-stroke seek on MEMS.
  walk_gap_ = kWalkGapScale * (rot_ ? T_ : seek_lb_[C_ - 1]);
}

void AccessIndex::sync_rotation(Millis period) {
  set_units(period);
  for (Hot& h : hot_) set_probe(h.p, slots_[h.slot].req.loc);
  set_leads(lead_beta_, lead_ref_);
  for (std::size_t i = order_head_; i < order_.size(); ++i) {
    AgeEntry& e = order_[i];
    if (!stale(e)) e.p = hot_[slots_[e.slot].hot].p;
  }
}

void AccessIndex::set_leads(double beta, Millis ref) {
  lead_beta_ = beta;
  lead_beta_u_ = beta / unit_ms_;
  lead_ref_ = ref;
  for (std::size_t j = 0; j < hot_.size(); ++j) set_lead(j);
}

void AccessIndex::add_new_overhead(Millis o) {
  for (auto& [v, n] : overheads_)
    if (v == o) {
      ++n;
      return;
    }
  overheads_.emplace_back(o, 1);
  if (overheads_.size() == 1 || o < min_overhead_) min_overhead_ = o;
}

void AccessIndex::remove_other_overhead(Millis o) {
  for (std::size_t i = 0; i < overheads_.size(); ++i) {
    if (overheads_[i].first != o) continue;
    if (--overheads_[i].second == 0) {
      overheads_[i] = overheads_.back();
      overheads_.pop_back();
      min_overhead_ = kInf;
      for (const auto& [v, n] : overheads_) min_overhead_ = std::min(min_overhead_, v);
      if (overheads_.empty()) min_overhead_ = 0.0;
    }
    return;
  }
}

void AccessIndex::order_insert(const AgeEntry& e) {
  auto later = [](const AgeEntry& a, const AgeEntry& b) {
    return a.arrival != b.arrival ? a.arrival < b.arrival : a.id < b.id;
  };
  // Arrivals come almost always in order: appending is the common case.
  if (order_.size() == order_head_ || !later(e, order_.back())) {
    order_.push_back(e);
    return;
  }
  auto it = std::upper_bound(order_.begin() + static_cast<std::ptrdiff_t>(order_head_),
                             order_.end(), e, later);
  order_.insert(it, e);
}

// One entry went stale: drop stale entries at both ends (so the front and back are
// always live) and compact when stale ones make up half.
void AccessIndex::order_erased() {
  ++order_stale_;
  while (order_head_ < order_.size() && stale(order_[order_head_])) {
    ++order_head_;
    --order_stale_;
  }
  while (order_.size() > order_head_ && stale(order_.back())) {
    order_.pop_back();
    --order_stale_;
  }
  const std::size_t held = order_.size() - order_head_;
  if (order_head_ > 64 && order_head_ * 2 > order_.size()) {
    order_.erase(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(order_head_));
    order_head_ = 0;
  }
  if (order_stale_ > 64 && order_stale_ * 2 > held) {
    std::size_t w = 0;
    for (std::size_t i = order_head_; i < order_.size(); ++i)
      if (!stale(order_[i])) order_[w++] = order_[i];
    order_.resize(w);
    order_head_ = 0;
    order_stale_ = 0;
  }
}

void AccessIndex::refresh_cell_age(std::int32_t cell) {
  double m = kInf;
  for (std::int32_t si = cell_head_[cell]; si >= 0; si = slots_[si].next)
    m = std::min(m, slots_[si].req.arrival_ms);
  cell_oldest_[cell] = m;
}

void AccessIndex::refresh_band_age(std::int32_t band) {
  double m = kInf;
  for (std::uint64_t mask = band_mask_[band]; mask != 0; mask &= mask - 1)
    m = std::min(m, cell_oldest_[band * kBuckets + std::countr_zero(mask)]);
  if (band_oldest_[band] == m) return;
  const bool was_group_oldest = band_oldest_[band] <= group_oldest_[band / kGroupBands];
  band_oldest_[band] = m;
  if (m < group_oldest_[band / kGroupBands])
    group_oldest_[band / kGroupBands] = m;
  else if (was_group_oldest)
    refresh_group_age(band / kGroupBands);
}

void AccessIndex::refresh_group_age(std::int32_t group) {
  double m = kInf;
  const std::int32_t end = std::min<std::int32_t>(B_, (group + 1) * kGroupBands);
  for (std::int32_t b = group * kGroupBands; b < end; ++b) m = std::min(m, band_oldest_[b]);
  group_oldest_[group] = m;
}

void AccessIndex::throw_held(std::uint64_t id) {
  throw std::invalid_argument("request id " + std::to_string(id) + " is already held");
}

void AccessIndex::insert(const Request& r) {
  const std::int32_t si =
      free_.empty() ? static_cast<std::int32_t>(slots_.size()) : free_.back();
  if (ids_mapped_) {
    if (!slot_of_.insert(r.id, si)) throw_held(r.id);
  } else {
    if (id_tails_[r.id & 63] != 0) [[unlikely]] {
      for (const std::uint64_t id : ids_)
        if (id == r.id) throw_held(r.id);
    }
    if (count_ + 1 > kLinearMax) {  // a long queue: the map from now on
      for (std::size_t j = 0; j < ids_.size(); ++j) slot_of_.insert(ids_[j], hot_[j].slot);
      slot_of_.insert(r.id, si);
      ids_mapped_ = true;
    }
  }
  if (free_.empty()) {
    slots_.emplace_back();
    slot_gen_.push_back(0);
  } else {
    free_.pop_back();
  }
  Slot& s = slots_[si];
  s.req = r;
  s.seq = next_seq_++;
  s.live = true;
  ++slot_gen_[si];
  s.prev = s.next = s.cell = -1;
  s.hot = static_cast<std::int32_t>(hot_.size());
  // Field by field: a whole-struct temporary costs a store-forwarding stall here.
  Hot& h = hot_.emplace_back();
  set_probe(h.p, r.loc);
  h.arrival = r.arrival_ms;
  h.slot = si;
  lead_.emplace_back();
  set_lead(hot_.size() - 1);
  ids_.push_back(r.id);
  ++id_tails_[r.id & 63];
  ++count_;
  add_overhead(r.loc.overhead_ms);
  if (grid_on_)
    grid_link(si);
  else if (cells_ && count_ > kLinearMax)
    grid_build();
}

void AccessIndex::grid_build() {
  if (cell_head_.empty()) {
    cell_head_.assign(static_cast<std::size_t>(B_) * kBuckets, -1);
    band_mask_.assign(B_, 0);
    band_bits_.assign((B_ + 63) / 64, 0);
    if (track_age_) {
      cell_oldest_.assign(static_cast<std::size_t>(B_) * kBuckets, kInf);
      band_oldest_.assign(B_, kInf);
      group_oldest_.assign((B_ + kGroupBands - 1) / kGroupBands, kInf);
    }
  }
  grid_on_ = true;
  for (const Hot& h : hot_) grid_link(h.slot);
}

// Back to the short-queue form: every grid structure returns to empty.
void AccessIndex::grid_clear() {
  for (const Hot& h : hot_) {
    Slot& s = slots_[h.slot];
    const std::int32_t band = s.cell / kBuckets;
    cell_head_[s.cell] = -1;
    band_mask_[band] = 0;
    band_bits_[band / 64] = 0;
    if (track_age_) {
      cell_oldest_[s.cell] = kInf;
      band_oldest_[band] = kInf;
      group_oldest_[band / kGroupBands] = kInf;
    }
    s.prev = s.next = s.cell = -1;
  }
  order_.clear();
  order_head_ = order_stale_ = 0;
  grid_on_ = false;
}

void AccessIndex::grid_link(std::int32_t si) {
  Slot& s = slots_[si];
  const Request& r = s.req;
  if (track_age_)
    order_insert(AgeEntry{r.arrival_ms, r.id, hot_[s.hot].p, si, slot_gen_[si]});
  const std::int32_t band = static_cast<std::int32_t>(clamp_cyl(r.loc.cylinder) / W_);
  const int k = bucket_of(r.loc.angle);
  const std::int32_t cell = band * kBuckets + k;
  s.cell = cell;
  s.prev = -1;
  s.next = cell_head_[cell];
  if (s.next >= 0) slots_[s.next].prev = si;
  cell_head_[cell] = si;
  if (band_mask_[band] == 0) band_bits_[band / 64] |= std::uint64_t{1} << (band % 64);
  band_mask_[band] |= std::uint64_t{1} << k;
  if (track_age_ && r.arrival_ms < cell_oldest_[cell]) {
    cell_oldest_[cell] = r.arrival_ms;
    if (r.arrival_ms < band_oldest_[band]) {
      band_oldest_[band] = r.arrival_ms;
      auto& g = group_oldest_[band / kGroupBands];
      if (r.arrival_ms < g) g = r.arrival_ms;
    }
  }
}

// Called after the slot has been marked dead; `arrival` is the request's.
void AccessIndex::grid_unlink(std::int32_t si, Millis arrival) {
  Slot& s = slots_[si];
  if (track_age_) order_erased();
  const std::int32_t cell = s.cell;
  const std::int32_t band = cell / kBuckets;
  const int k = cell % kBuckets;
  if (s.prev >= 0)
    slots_[s.prev].next = s.next;
  else
    cell_head_[cell] = s.next;
  if (s.next >= 0) slots_[s.next].prev = s.prev;
  if (cell_head_[cell] < 0) {
    band_mask_[band] &= ~(std::uint64_t{1} << k);
    if (band_mask_[band] == 0) band_bits_[band / 64] &= ~(std::uint64_t{1} << (band % 64));
  }
  if (track_age_ && arrival <= cell_oldest_[cell]) {
    refresh_cell_age(cell);
    if (arrival <= band_oldest_[band]) refresh_band_age(band);
  }
  s.prev = s.next = s.cell = -1;
}

std::optional<Request> AccessIndex::erase(std::uint64_t id) {
  const std::int32_t si = slot_of_id(id);
  if (si == IdMap::kAbsent) return std::nullopt;
  return erase_slot(si);
}

std::optional<Request> AccessIndex::erase_slot(std::int32_t si) {
  Slot& s = slots_[si];
  if (ids_mapped_) {
    slot_of_.erase(s.req.id);
    if (count_ <= kGridOff) {  // short again: back to ids_
      slot_of_.clear();
      ids_mapped_ = false;
    }
  }
  s.live = false;
  ++slot_gen_[si];
  --count_;
  const Hot& last = hot_.back();
  slots_[last.slot].hot = s.hot;
  Hot& h = hot_[static_cast<std::size_t>(s.hot)];
  h.p.phase = last.p.phase;
  h.p.overhead = last.p.overhead;
  h.p.cylinder = last.p.cylinder;
  h.arrival = last.arrival;
  h.slot = last.slot;
  hot_.pop_back();
  // The last lead moves with its request: only its position bits change.
  lead_[static_cast<std::size_t>(s.hot)] =
      (lead_.back() & ~std::int64_t{kFixedGrain - 1}) | static_cast<std::int64_t>(s.hot);
  lead_.pop_back();
  ids_[static_cast<std::size_t>(s.hot)] = ids_.back();
  ids_.pop_back();
  --id_tails_[s.req.id & 63];
  s.hot = -1;
  remove_overhead(s.req.loc.overhead_ms);
  if (grid_on_) {
    grid_unlink(si, s.req.arrival_ms);
    if (count_ < kGridOff) grid_clear();
  }
  free_.push_back(si);
  // Built in place in the caller's object (a temporary here costs a store-forwarding
  // stall); the dead slot keeps its request until the next insert reuses it.
  return std::optional<Request>(std::in_place, std::move(s.req));
}

bool AccessIndex::relocate(const Request& r) {
  const std::int32_t si = slot_of_id(r.id);
  if (si == IdMap::kAbsent) return false;
  Slot& s = slots_[si];
  if (grid_on_) {
    // Its arrival-order entry goes stale (the generation stays odd: live); grid_link
    // files a new one.
    slot_gen_[si] += 2;
    grid_unlink(si, s.req.arrival_ms);
  }
  remove_overhead(s.req.loc.overhead_ms);
  s.req.loc = r.loc;
  add_overhead(r.loc.overhead_ms);
  set_probe(hot_[static_cast<std::size_t>(s.hot)].p, r.loc);
  set_lead(static_cast<std::size_t>(s.hot));
  if (grid_on_) grid_link(si);
  return true;
}

const Request* AccessIndex::find(std::uint64_t id) const {
  const std::int32_t si = slot_of_id(id);
  return si == IdMap::kAbsent ? nullptr : &slots_[si].req;
}

std::uint64_t AccessIndex::seq_of(std::uint64_t id) const {
  const std::int32_t si = slot_of_id(id);
  if (si == IdMap::kAbsent)
    throw std::invalid_argument("request id " + std::to_string(id) + " is not held");
  return slots_[si].seq;
}

Millis AccessIndex::oldest_arrival() const {
  if (count_ == 0) return kInf;
  if (grid_on_ && track_age_) return order_[order_head_].arrival;
  double m = kInf;
  for (const Hot& h : hot_) m = std::min(m, h.arrival);
  return m;
}

std::vector<Request> AccessIndex::drain() {
  std::vector<Request> out;
  out.reserve(count_);
  if (grid_on_) grid_clear();
  for (auto& s : slots_)
    if (s.live) out.push_back(std::move(s.req));
  slots_.clear();
  slot_gen_.clear();
  hot_.clear();
  lead_.clear();
  free_.clear();
  slot_of_.clear();
  ids_.clear();
  ids_mapped_ = false;
  id_tails_.fill(0);
  order_.clear();
  order_head_ = order_stale_ = 0;
  count_ = 0;
  overheads_.clear();
  min_overhead_ = 0.0;
  return out;
}

std::int32_t AccessIndex::next_band(std::int32_t from, std::int32_t to) const {
  if (from > to) return -1;
  std::size_t w = static_cast<std::size_t>(from) / 64;
  std::uint64_t bits = band_bits_[w] & (~std::uint64_t{0} << (from % 64));
  while (true) {
    if (bits != 0) {
      const std::int32_t b = static_cast<std::int32_t>(w * 64 + std::countr_zero(bits));
      return b <= to ? b : -1;
    }
    if (++w >= band_bits_.size() || static_cast<std::int32_t>(w * 64) > to) return -1;
    bits = band_bits_[w];
  }
}

std::int32_t AccessIndex::prev_band(std::int32_t from, std::int32_t to) const {
  if (from < to || from < 0) return -1;
  std::size_t w = static_cast<std::size_t>(from) / 64;
  const int sh = 63 - from % 64;
  std::uint64_t bits = band_bits_[w] & (~std::uint64_t{0} >> sh);
  while (true) {
    if (bits != 0) {
      const std::int32_t b = static_cast<std::int32_t>(w * 64 + 63 - std::countl_zero(bits));
      return b >= to ? b : -1;
    }
    if (w == 0 || static_cast<std::int32_t>(w * 64) - 1 < to) return -1;
    bits = band_bits_[--w];
  }
}

}  // namespace disksched::rotational
