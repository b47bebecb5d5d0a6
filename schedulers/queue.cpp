#include "schedulers/queue.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace disksched {
namespace {

bool has_extent(Op op) { return op != Op::Flush; }
bool modifies(Op op) { return op == Op::Write || op == Op::Trim || op == Op::Zero; }
bool indexed(const Request& r) { return has_extent(r.op) && r.length > 0; }

bool overlaps(const Request& a, const Request& b) {
  if (!indexed(a) || !indexed(b)) return false;
  return a.offset < b.offset + b.length && b.offset < a.offset + a.length;
}

}  // namespace

RequestQueue::RequestQueue(std::unique_ptr<Scheduler> scheduler, const DeviceModel& model)
    : scheduler_(std::move(scheduler)), model_(model), capacity_(model.capacity_bytes()), ring_(64) {
  located_ = scheduler_->uses_locations();
}

void RequestQueue::grow(std::uint64_t id) {
  std::size_t n = ring_.size();
  while (id - oldest_ >= n) n *= 2;
  std::vector<Unfinished> grown(n);
  for (std::uint64_t q = oldest_; q < end_; ++q) {
    Unfinished& u = ring_[q & (ring_.size() - 1)];
    if (u.live) grown[q & (n - 1)] = std::move(u);
  }
  ring_.swap(grown);
}

inline RequestQueue::Unfinished& RequestQueue::add(std::uint64_t id) {
  if (unfinished_ == 0) oldest_ = id;  // nothing older is unfinished
  if (id - oldest_ >= ring_.size()) grow(id);
  any_ = true;
  end_ = id + 1;
  ++unfinished_;
  Unfinished& u = ring_[id & (ring_.size() - 1)];
  u.live = true;
  u.at_device = false;
  u.blocked = false;
  return u;
}

inline void RequestQueue::remove(std::uint64_t id) {
  ring_[id & (ring_.size() - 1)].live = false;
  --unfinished_;
  while (oldest_ < end_ && !ring_[oldest_ & (ring_.size() - 1)].live) ++oldest_;
}

template <typename F>
void RequestQueue::for_each_near(std::uint64_t offset, std::uint64_t length, F&& f) const {
  if (lengths_.empty() || length == 0) return;
  // Whatever overlaps starts before offset + length and after offset - longest.
  const std::uint64_t longest = lengths_.back().first;
  const std::uint64_t from = offset >= longest ? offset - longest + 1 : 0;
  auto it = std::lower_bound(by_offset_.begin(), by_offset_.end(),
                             std::pair<std::uint64_t, std::uint64_t>{from, 0});
  for (; it != by_offset_.end() && it->first < offset + length; ++it)
    f(ring_[it->second & (ring_.size() - 1)]);
}

void RequestQueue::index(const Unfinished& u) {
  if (!indexed(u.req)) return;
  if (modifies(u.req.op)) ++modifying_;
  if (!by_offset_live_) return;
  const std::pair<std::uint64_t, std::uint64_t> key{u.req.offset, u.req.id};
  by_offset_.insert(std::upper_bound(by_offset_.begin(), by_offset_.end(), key), key);
  auto l = std::lower_bound(lengths_.begin(), lengths_.end(),
                            std::pair<std::uint32_t, std::uint32_t>{u.req.length, 0});
  if (l != lengths_.end() && l->first == u.req.length)
    ++l->second;
  else
    lengths_.insert(l, {u.req.length, 1});
}

void RequestQueue::unindex(const Unfinished& u) {
  if (!indexed(u.req)) return;
  if (modifies(u.req.op)) --modifying_;
  if (!by_offset_live_) return;
  const std::pair<std::uint64_t, std::uint64_t> key{u.req.offset, u.req.id};
  by_offset_.erase(std::lower_bound(by_offset_.begin(), by_offset_.end(), key));
  auto l = std::lower_bound(lengths_.begin(), lengths_.end(),
                            std::pair<std::uint32_t, std::uint32_t>{u.req.length, 0});
  if (--l->second == 0) lengths_.erase(l);
}

void RequestQueue::build_overlap_index() {
  if (by_offset_live_) return;
  by_offset_.clear();
  lengths_.clear();
  for (std::uint64_t id = oldest_; any_ && id < end_; ++id) {
    const Unfinished& u = ring_[id & (ring_.size() - 1)];
    if (!u.live || !indexed(u.req)) continue;
    by_offset_.emplace_back(u.req.offset, id);
    lengths_.emplace_back(u.req.length, 1);
  }
  std::sort(by_offset_.begin(), by_offset_.end());
  std::sort(lengths_.begin(), lengths_.end());
  std::size_t n = 0;  // merge equal lengths into counts
  for (std::size_t i = 0; i < lengths_.size(); ++i)
    if (n > 0 && lengths_[n - 1].first == lengths_[i].first)
      ++lengths_[n - 1].second;
    else
      lengths_[n++] = lengths_[i];
  lengths_.resize(n);
  by_offset_live_ = true;
}

void RequestQueue::drop_overlap_index() {
  if (modifying_ > 0 || blocked_count_ > 0) return;
  by_offset_live_ = false;
  by_offset_.clear();
  lengths_.clear();
}

bool RequestQueue::conflicts_before(const Request& r, std::uint64_t id_limit) const {
  if (!indexed(r)) return false;
  // Two reads never conflict: a read meets a conflict only while something modifies.
  if (!modifies(r.op) && modifying_ == 0) return false;
  bool found = false;
  for_each_near(r.offset, r.length, [&](const Unfinished& u) {
    if (!found && u.req.id < id_limit && (modifies(u.req.op) || modifies(r.op)) &&
        overlaps(u.req, r))
      found = true;
  });
  return found;
}

Location RequestQueue::locate(const Request& r, const TrackAngles* learnt) const {
  if (!has_extent(r.op) || r.length == 0) return Location{};
  const std::uint32_t sb = model_.sector_bytes();
  const std::uint64_t lba = r.offset / sb;
  const auto sectors = static_cast<std::uint32_t>((r.offset + r.length + sb - 1) / sb - lba);
  // The op matters: the model charges its command overhead in the Location.
  return learnt ? model_.locate(lba, sectors, r.op, *learnt) : model_.locate(lba, sectors, r.op);
}

void RequestQueue::push(const Request& r, const TrackAngles* learnt) {
  if (any_ && r.id < end_)
    throw std::invalid_argument("request id " + std::to_string(r.id) +
                                " is not above the last one queued (" + std::to_string(end_ - 1) +
                                "): ids must increase");
  const std::uint64_t cap = capacity_;
  // Located before anything changes: beyond the device, locate() refuses it in the
  // model's words and the queue stays untouched.
  const bool locate_it =
      located_ || (has_extent(r.op) && (r.length > cap || r.offset > cap - r.length));
  Location loc;
  if (locate_it) loc = locate(r, learnt);
  const bool modifying = modifies(r.op);
  if (has_extent(r.op) && modifying) build_overlap_index();
  // Two reads never conflict: a read meets a conflict only while something modifies.
  const bool blocked = (modifying_ > 0 || modifying) && conflicts_before(r, r.id);
  Unfinished& u = add(r.id);
  u.req = r;
  if (locate_it) u.req.loc = loc;
  u.blocked = blocked;
  if (blocked)
    ++blocked_count_;
  else
    scheduler_->add(u.req);
  // Only a write, or any extent while the overlap window is kept, touches the index.
  if (by_offset_live_ || modifying) index(u);
}

std::size_t RequestQueue::relocate_track(std::int64_t cylinder, std::int32_t head,
                                         const TrackAngles& learnt) {
  // A track turns rarely (a few times per mis-skewed track): a pass over what is
  // unfinished costs less than keeping requests by track.
  std::size_t moved = 0;
  if (unfinished_ == 0 || !located_) return 0;
  for (std::uint64_t id = oldest_; id < end_; ++id) {
    Unfinished& u = ring_[id & (ring_.size() - 1)];
    if (!u.live) continue;
    Request& r = u.req;
    if (!indexed(r) || r.loc.cylinder != cylinder || r.loc.head != head) continue;
    r.loc = locate(r, &learnt);
    if (!u.at_device && !u.blocked) scheduler_->relocate(r);
    ++moved;
  }
  return moved;
}

std::optional<Request> RequestQueue::take(std::uint64_t id) {
  Unfinished* u = find(id);
  if (u == nullptr || u->at_device || u->blocked || !scheduler_->remove(id)) return std::nullopt;
  u->at_device = true;
  ++in_flight_;
  return u->req;
}

void RequestQueue::release_after(const Request& gone) {
  if (blocked_count_ == 0) return;
  // Only blocked requests overlapping the one that left can have been waiting on it.
  std::vector<std::uint64_t> candidates;
  for_each_near(gone.offset, gone.length, [&](const Unfinished& u) {
    if (u.blocked && overlaps(u.req, gone)) candidates.push_back(u.req.id);
  });
  std::sort(candidates.begin(), candidates.end());  // arrival order
  for (std::uint64_t id : candidates) {
    Unfinished& u = *find(id);
    if (!conflicts_before(u.req, id)) {
      u.blocked = false;
      --blocked_count_;
      scheduler_->add(u.req);
    }
  }
}

void RequestQueue::complete(std::uint64_t id, Millis now) {
  Unfinished* u = find(id);
  if (u == nullptr)
    throw std::invalid_argument("complete: unknown request id " + std::to_string(id));
  if (!u->at_device)
    throw std::logic_error("complete: request " + std::to_string(id) + " was never dispatched");
  scheduler_->completed(u->req, now);
  if (by_offset_live_ || modifies(u->req.op)) unindex(*u);
  --in_flight_;
  if (blocked_count_ > 0) {
    // Copied only when a blocked request may wait on it (a Request is large).
    const Request gone = u->req;
    remove(id);
    release_after(gone);
  } else {
    remove(id);
  }
  // Without the window (a read-only queue) there is nothing to drop.
  if (by_offset_live_) drop_overlap_index();
}

bool RequestQueue::cancel(std::uint64_t id) {
  Unfinished* u = find(id);
  if (u == nullptr || u->at_device) return false;
  if (u->blocked) {
    --blocked_count_;
  } else if (!scheduler_->remove(id)) {
    return false;
  }
  unindex(*u);
  const Request gone = u->req;
  remove(id);
  // A cancelled request may have been what blocked others.
  release_after(gone);
  drop_overlap_index();
  return true;
}

void RequestQueue::set_scheduler(std::unique_ptr<Scheduler> s, const TrackAngles* learnt) {
  const bool locate_now = !located_ && s->uses_locations();
  if (locate_now)
    for (std::uint64_t id = oldest_; any_ && id < end_; ++id) {
      Unfinished& u = ring_[id & (ring_.size() - 1)];
      if (u.live) u.req.loc = locate(u.req, learnt);
    }
  for (auto& r : scheduler_->drain()) s->add(locate_now ? find(r.id)->req : r);
  if (in_flight_ > 0)
    for (std::uint64_t id = oldest_; any_ && id < end_; ++id) {
      const Unfinished& u = ring_[id & (ring_.size() - 1)];
      if (u.live && u.at_device) s->at_device(u.req);
    }
  scheduler_ = std::move(s);
  located_ = scheduler_->uses_locations();
}


}  // namespace disksched
