#include "schedulers/queue.hpp"

#include <stdexcept>
#include <string>

namespace disksched {
namespace {

bool has_extent(Op op) { return op != Op::Flush; }
bool modifies(Op op) { return op == Op::Write || op == Op::Trim || op == Op::Zero; }

bool overlaps(const Request& a, const Request& b) {
  if (!has_extent(a.op) || !has_extent(b.op) || a.length == 0 || b.length == 0) return false;
  return a.offset < b.offset + b.length && b.offset < a.offset + a.length;
}

}  // namespace

RequestQueue::RequestQueue(std::unique_ptr<Scheduler> scheduler, const DeviceModel& model)
    : scheduler_(std::move(scheduler)), model_(model) {}

bool RequestQueue::conflicts_before(const Request& r, std::uint64_t seq_limit) const {
  for (auto it = unfinished_.begin(); it != unfinished_.end() && it->first < seq_limit; ++it) {
    const Request& e = it->second.req;
    if ((modifies(e.op) || modifies(r.op)) && overlaps(e, r)) return true;
  }
  return false;
}

void RequestQueue::push(Request r) {
  if (seq_of_.count(r.id) != 0)
    throw std::invalid_argument("request id " + std::to_string(r.id) + " is already queued");
  const std::uint32_t sb = model_.sector_bytes();
  if (has_extent(r.op) && r.length > 0) {
    const std::uint64_t lba = r.offset / sb;
    const std::uint64_t end = (r.offset + r.length + sb - 1) / sb;
    // The op matters: the model charges its command overhead in the Location.
    r.loc = model_.locate(lba, static_cast<std::uint32_t>(end - lba), r.op);
  } else {
    r.loc = Location{};
  }
  const std::uint64_t seq = next_seq_++;
  Unfinished u{r, false, conflicts_before(r, seq)};
  seq_of_[r.id] = seq;
  if (u.blocked)
    ++blocked_count_;
  else
    scheduler_->add(r);
  unfinished_.emplace(seq, std::move(u));
}

std::optional<Request> RequestQueue::pick(Millis now, const HeadState& head) {
  auto r = scheduler_->pick(now, head);
  if (!r) return r;
  auto& u = unfinished_.at(seq_of_.at(r->id));
  u.at_device = true;
  ++in_flight_;
  return r;
}

void RequestQueue::complete(std::uint64_t id, Millis now) {
  auto s = seq_of_.find(id);
  if (s == seq_of_.end()) throw std::invalid_argument("complete: unknown request id " + std::to_string(id));
  auto it = unfinished_.find(s->second);
  if (!it->second.at_device)
    throw std::logic_error("complete: request " + std::to_string(id) + " was never dispatched");
  scheduler_->completed(it->second.req, now);
  unfinished_.erase(it);
  seq_of_.erase(s);
  --in_flight_;
  if (blocked_count_ == 0) return;
  // Release, in arrival order, the blocked requests nothing earlier conflicts with.
  for (auto& [seq, u] : unfinished_) {
    if (!u.blocked) continue;
    if (!conflicts_before(u.req, seq)) {
      u.blocked = false;
      --blocked_count_;
      scheduler_->add(u.req);
    }
  }
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
  unfinished_.erase(it);
  seq_of_.erase(s);
  // A cancelled request may have been what blocked others.
  for (auto& [seq, u] : unfinished_) {
    if (u.blocked && !conflicts_before(u.req, seq)) {
      u.blocked = false;
      --blocked_count_;
      scheduler_->add(u.req);
    }
  }
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
