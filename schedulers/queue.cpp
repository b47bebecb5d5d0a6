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
    : scheduler_(std::move(scheduler)), model_(model) {}

template <typename F>
void RequestQueue::for_each_near(std::uint64_t offset, std::uint64_t length, F&& f) const {
  if (lengths_.empty() || length == 0) return;
  // Whatever overlaps starts before offset + length and after offset - longest.
  const std::uint64_t longest = *lengths_.rbegin();
  const std::uint64_t from = offset >= longest ? offset - longest + 1 : 0;
  for (auto it = by_offset_.lower_bound(from); it != by_offset_.end() && it->first < offset + length;
       ++it)
    f(it->second, unfinished_.at(it->second));
}

void RequestQueue::index(std::uint64_t seq, const Unfinished& u) {
  if (!indexed(u.req)) return;
  by_offset_.emplace(u.req.offset, seq);
  lengths_.insert(u.req.length);
}

void RequestQueue::unindex(std::uint64_t seq, const Unfinished& u) {
  if (!indexed(u.req)) return;
  auto [first, last] = by_offset_.equal_range(u.req.offset);
  for (auto it = first; it != last; ++it)
    if (it->second == seq) {
      by_offset_.erase(it);
      break;
    }
  lengths_.erase(lengths_.find(u.req.length));
}

bool RequestQueue::conflicts_before(const Request& r, std::uint64_t seq_limit) const {
  if (!indexed(r)) return false;
  bool found = false;
  for_each_near(r.offset, r.length, [&](std::uint64_t seq, const Unfinished& u) {
    if (!found && seq < seq_limit && (modifies(u.req.op) || modifies(r.op)) && overlaps(u.req, r))
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

void RequestQueue::push(Request r, const TrackAngles* learnt) {
  if (seq_of_.count(r.id) != 0)
    throw std::invalid_argument("request id " + std::to_string(r.id) + " is already queued");
  r.loc = locate(r, learnt);
  const std::uint64_t seq = next_seq_++;
  Unfinished u{r, false, conflicts_before(r, seq)};
  seq_of_[r.id] = seq;
  if (u.blocked)
    ++blocked_count_;
  else
    scheduler_->add(r);
  auto it = unfinished_.emplace(seq, std::move(u)).first;
  index(seq, it->second);
}

std::size_t RequestQueue::relocate_track(std::int64_t cylinder, std::int32_t head,
                                         const TrackAngles& learnt) {
  // A track turns rarely (a few times per mis-skewed track): a pass over what is
  // unfinished costs less than keeping requests by track.
  std::size_t moved = 0;
  for (auto& [seq, u] : unfinished_) {
    Request& r = u.req;
    if (!indexed(r) || r.loc.cylinder != cylinder || r.loc.head != head) continue;
    r.loc = locate(r, &learnt);
    if (!u.at_device && !u.blocked) scheduler_->relocate(r);
    ++moved;
  }
  return moved;
}

std::optional<Request> RequestQueue::pick(Millis now, const HeadState& head) {
  auto r = scheduler_->pick(now, head);
  if (!r) return r;
  auto& u = unfinished_.at(seq_of_.at(r->id));
  u.at_device = true;
  ++in_flight_;
  return r;
}

void RequestQueue::release_after(const Request& gone) {
  if (blocked_count_ == 0) return;
  // Only blocked requests overlapping the one that left can have been waiting on it.
  std::vector<std::uint64_t> candidates;
  for_each_near(gone.offset, gone.length, [&](std::uint64_t seq, const Unfinished& u) {
    if (u.blocked && overlaps(u.req, gone)) candidates.push_back(seq);
  });
  std::sort(candidates.begin(), candidates.end());  // arrival order
  for (std::uint64_t seq : candidates) {
    Unfinished& u = unfinished_.at(seq);
    if (!conflicts_before(u.req, seq)) {
      u.blocked = false;
      --blocked_count_;
      scheduler_->add(u.req);
    }
  }
}

void RequestQueue::complete(std::uint64_t id, Millis now) {
  auto s = seq_of_.find(id);
  if (s == seq_of_.end()) throw std::invalid_argument("complete: unknown request id " + std::to_string(id));
  auto it = unfinished_.find(s->second);
  if (!it->second.at_device)
    throw std::logic_error("complete: request " + std::to_string(id) + " was never dispatched");
  scheduler_->completed(it->second.req, now);
  const Request gone = it->second.req;
  unindex(it->first, it->second);
  unfinished_.erase(it);
  seq_of_.erase(s);
  --in_flight_;
  release_after(gone);
}

bool RequestQueue::cancel(std::uint64_t id) {
  auto s = seq_of_.find(id);
  if (s == seq_of_.end()) return false;
  auto it = unfinished_.find(s->second);
  if (it->second.at_device) return false;
  if (it->second.blocked) {
    --blocked_count_;
  } else if (!scheduler_->remove(id)) {
    return false;
  }
  const Request gone = it->second.req;
  unindex(it->first, it->second);
  unfinished_.erase(it);
  seq_of_.erase(s);
  // A cancelled request may have been what blocked others.
  release_after(gone);
  return true;
}

void RequestQueue::set_scheduler(std::unique_ptr<Scheduler> s) {
  for (auto& r : scheduler_->drain()) s->add(r);
  scheduler_ = std::move(s);
}

std::size_t RequestQueue::queued() const { return unfinished_.size() - in_flight_; }
std::size_t RequestQueue::eligible() const { return scheduler_->size(); }
std::size_t RequestQueue::in_flight() const { return in_flight_; }

}  // namespace disksched
