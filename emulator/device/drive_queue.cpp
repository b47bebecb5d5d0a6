#include "emulator/device/drive_queue.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "schedulers/registry.hpp"

namespace disksched {

namespace {

std::unique_ptr<Scheduler> firmware_policy(const DriveQueueOptions& o, const DeviceModel& m) {
  if (o.depth == 0) throw std::invalid_argument("drive queue: depth must be at least 1");
  if (!(o.age_limit_ms > 0.0))
    throw std::invalid_argument(fmt::format(
        "drive queue: age limit {} ms: expected a duration > 0 (or none)", o.age_limit_ms));
  return make_scheduler(o.policy, m);
}

}  // namespace

DriveQueue::DriveQueue(VirtualDevice& device, DriveQueueOptions options)
    : device_(device),
      options_(std::move(options)),
      queue_(firmware_policy(options_, device.model()), device.model()) {
  policy_ = queue_.scheduler().spec();
}

DriveQueue::~DriveQueue() = default;

void DriveQueue::submit(std::uint64_t tag, Millis now, Op op, std::uint64_t offset,
                        std::uint32_t length, std::span<const std::uint64_t> stops, bool fua) {
  const std::uint64_t cap = device_.model().capacity_bytes();
  if (offset > cap || length > cap - offset)
    throw ModelError(fmt::format("{}: bytes [{}, {}) lie beyond the device ({} bytes)",
                                 device_.model().name(), offset, offset + length, cap));
  Command c;
  c.tag = tag;
  c.op = op;
  c.offset = offset;
  c.length = length;
  c.submit_ms = now;
  c.stops.assign(stops.begin(), stops.end());
  c.fua = fua;
  adapter_.push_back(std::move(c));
  accept(now);
}

void DriveQueue::accept(Millis now) {
  while (!adapter_.empty() && !flush_held_) {
    const std::size_t busy = held_.size() + (current_ ? 1 : 0);
    if (busy >= options_.depth) return;
    Command& c = adapter_.front();
    if (c.op == Op::Flush) {
      // Non-queued: it waits for the drive to empty, and holds up what comes after it.
      if (busy > 0) return;
      flush_held_ = true;
    }
    c.accepted_ms = now;
    const std::uint64_t id = next_id_++;
    if (c.op != Op::Flush) {
      Request r;
      r.id = id;
      r.op = c.op;
      r.offset = c.offset;
      r.length = c.length;
      r.arrival_ms = now;
      queue_.push(r);
    }
    held_.emplace(id, std::move(c));
    adapter_.pop_front();
  }
}

bool DriveQueue::start(Millis now) {
  if (current_ || held_.empty()) return false;
  const std::size_t held = held_.size();
  auto oldest = held_.begin();
  // A flush is held alone; so is an old command's claim to go next.
  if (oldest->second.op == Op::Flush ||
      (options_.has_age_limit() && now - oldest->second.accepted_ms > options_.age_limit_ms)) {
    const bool forced = oldest->second.op != Op::Flush;
    if (forced) {
      queue_.cancel(oldest->first);
      ++forced_;
    }
    Command c = std::move(oldest->second);
    held_.erase(oldest);
    current_id_ = std::nullopt;
    current_ = serve(std::move(c), held, forced);
    return true;
  }
  HeadState head = device_.head();
  head.time_ms = std::max(now, head.time_ms);
  std::optional<Request> r = queue_.pick(now, head);
  if (!r) return false;
  auto it = held_.find(r->id);
  if (it == held_.end()) throw std::logic_error("drive queue: the policy picked a command it was not given");
  Command c = std::move(it->second);
  held_.erase(it);
  for (const std::uint64_t lba : r->travel) c.stops.push_back(lba);
  current_id_ = r->id;
  current_ = serve(std::move(c), held, false);
  return true;
}

DriveQueue::Served DriveQueue::serve(Command c, std::size_t held, bool forced) {
  Served s;
  s.tag = c.tag;
  s.accepted_ms = c.accepted_ms;
  s.held = held;
  s.forced = forced;
  std::optional<Millis> first;
  const std::uint32_t sb = device_.model().sector_bytes();
  for (const std::uint64_t lba : c.stops) {
    const Service st = device_.serve(c.submit_ms, Op::Read, lba * sb, sb);
    if (!first) first = st.start_ms;
  }
  s.service = device_.serve(c.submit_ms, c.op, c.offset, c.length, c.fua);
  s.start_ms = first.value_or(s.service.start_ms);
  s.travel_ms = s.service.start_ms - s.start_ms;
  return s;
}

DriveQueue::Served DriveQueue::complete() {
  if (!current_) throw std::logic_error("drive queue: complete() with nothing in service");
  Served s = std::move(*current_);
  current_.reset();
  const Millis now = s.service.completion_ms;
  if (current_id_) queue_.complete(*current_id_, now);
  current_id_ = std::nullopt;
  if (s.service.op == Op::Flush) flush_held_ = false;
  accept(now);
  return s;
}

}  // namespace disksched
