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
    if (busy >= options_.depth) break;
    Command& c = adapter_.front();
    if (c.op == Op::Flush) {
      // Non-queued: it waits for the drive to empty, and holds up what comes after it.
      if (busy > 0) break;
      flush_held_ = true;
    }
    c.accepted_ms = now;
    held_.emplace(next_id_++, std::move(c));
    adapter_.pop_front();
  }
  fill_window(now);
}

void DriveQueue::fill_window(Millis now) {
  // The window is the oldest held commands: a prefix of held_ (a flush is held alone).
  for (auto& [id, c] : held_) {
    if (options_.window > 0 && in_window_ >= options_.window) return;
    if (c.window_ms >= 0.0 || c.op == Op::Flush) continue;
    queue_.push(Request::arrived(id, c.accepted_ms, c.op, c.offset, c.length));
    c.window_ms = now;
    ++in_window_;
  }
}

std::map<std::uint64_t, DriveQueue::Command>::iterator DriveQueue::overdue(Millis now) {
  const Millis limit = options_.age_limit_ms;
  auto late = [&](const Command& c, double times) {
    return c.window_ms >= 0.0 && now - c.window_ms > times * limit;
  };
  if (!options_.has_age_limit() || held_.empty()) return held_.end();
  // Past twice the limit: the oldest goes, whatever it costs (the bound on waiting).
  if (late(held_.begin()->second, 2.0)) return held_.begin();
  // Past the limit: before every younger command, the shortest to position for first,
  // never past an earlier command it overlaps (held earlier, so overdue too).
  const DeviceModel& m = device_.model();
  const std::uint64_t sb = m.sector_bytes();
  HeadState head = device_.head();
  head.time_ms = std::max(now, head.time_ms);
  auto best = held_.end();
  Millis best_ms = 0.0;
  for (auto it = held_.begin(); it != held_.end() && late(it->second, 1.0); ++it) {
    const Command& c = it->second;
    bool blocked = false;
    for (auto e = held_.begin(); e != it && !blocked; ++e)
      blocked = e->second.offset < c.offset + c.length && c.offset < e->second.offset + e->second.length;
    if (blocked) continue;
    const std::uint64_t lba = c.offset / sb, end = (c.offset + c.length + sb - 1) / sb;
    const Millis p = m.positioning_ms(
        head, m.locate(lba, static_cast<std::uint32_t>(std::max<std::uint64_t>(1, end - lba)), c.op));
    if (best == held_.end() || p < best_ms) {
      best = it;
      best_ms = p;
    }
  }
  return best;
}

bool DriveQueue::start(Millis now) {
  if (current_ || held_.empty()) return false;
  const std::size_t held = held_.size();
  // A flush is held alone; an overdue command has a claim to go next.
  auto forced = held_.begin()->second.op == Op::Flush ? held_.begin() : overdue(now);
  if (forced != held_.end()) {
    const bool aged = forced->second.op != Op::Flush;
    if (aged) {
      queue_.cancel(forced->first);
      --in_window_;
      ++forced_;
    }
    Command c = std::move(forced->second);
    held_.erase(forced);
    fill_window(now);
    current_id_ = std::nullopt;
    current_ = serve(std::move(c), held, aged);
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
  --in_window_;
  fill_window(now);
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
