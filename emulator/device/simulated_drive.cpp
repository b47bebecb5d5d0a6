#include "emulator/device/simulated_drive.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace disksched {

HeadState SimulatedDrive::predict(Millis now) const {
  // Idle, the head has been waiting since the last completion where that request left it.
  HeadState h = device_.head();
  h.time_ms = std::max(now, h.time_ms);
  return h;
}

const Prediction& SimulatedDrive::dispatched(std::uint64_t id, Millis now, Op op,
                                             std::uint64_t offset, std::uint32_t length,
                                             std::span<const std::uint64_t> stops) {
  if (queue_) {
    // The host's guess: from the head after the command in service, stops included.
    Prediction p;
    p.dispatch_ms = now;
    p.idle_start = queue_->idle();
    HeadState h = predict(now);
    const std::uint32_t sb = device_.model().sector_bytes();
    for (const std::uint64_t lba : stops) h = device_.model().service(h, Op::Read, lba * sb, sb).end;
    p.from = h;
    p.cost = device_.model().service(h, op, offset, length);
    queue_->submit(id, now, op, offset, length, stops);
    scratch_ = predicted_[id] = p;
    return scratch_;
  }
  const bool idle = held() == 0;
  Millis start = std::max(now, device_.head().time_ms);  // predict(now).time_ms
  // The scheduler's stops first: each a one-sector read, as the daemon issues them.
  if (!stops.empty()) {
    const std::uint32_t sb = device_.model().sector_bytes();
    for (const std::uint64_t lba : stops) device_.serve(now, Op::Read, lba * sb, sb);
  }
  if (first_ == end_) {
    first_ = end_ = 0;
  } else if (first_ >= 32 && 2 * first_ >= end_) {
    std::move(held_.begin() + static_cast<std::ptrdiff_t>(first_),
              held_.begin() + static_cast<std::ptrdiff_t>(end_), held_.begin());
    end_ -= first_;
    first_ = 0;
  }
  // Served straight into the FIFO's next slot, which is taken only once it is good.
  if (end_ == held_.size()) held_.emplace_back();
  InService& s = held_[end_];
  // predict(now) after the stops, written where it is kept (a HeadState copy the fewer).
  HeadState& from = s.prediction.from;
  from = device_.head();
  from.time_ms = std::max(now, from.time_ms);
  const Millis travel = from.time_ms - start;
  device_.serve_into(s.service, now, op, offset, length);
  // A write cache serves a command from its buffer while the mechanism destages: it
  // starts when the controller takes it, before the mechanism is free.
  if (stops.empty()) start = std::min(start, s.service.start_ms);
  if (!(s.service.completion_ms >= start))
    throw std::logic_error("model '" + device_.model().name() +
                           "' returned a completion before the start");
  ++end_;
  s.id = id;
  s.start_ms = start;
  s.travel_ms = travel;
  s.prediction.dispatch_ms = now;
  s.prediction.idle_start = idle;
  s.prediction.cost = s.service.cost;
  return s.prediction;
}

void SimulatedDrive::settle_queue(Millis now) {
  if (serving_ || !queue_->start(now)) return;
  const DriveQueue::Served& d = *queue_->in_service();
  InService s;
  s.id = d.tag;
  s.start_ms = d.start_ms;
  s.travel_ms = d.travel_ms;
  s.service = d.service;
  s.prediction = predicted_.at(d.tag);
  serving_ = s;
}

bool SimulatedDrive::hits(Millis now, std::uint64_t offset, std::uint32_t length) const {
  const DriveCache* drive = device_.drive();
  if (drive == nullptr || length == 0) return false;
  const std::uint32_t sb = device_.model().sector_bytes();
  const std::uint64_t first = offset / sb;
  return drive->holds(predict(now).time_ms, first,
                      static_cast<std::uint32_t>((offset + length + sb - 1) / sb - first));
}

const Prediction& SimulatedDrive::completed(std::uint64_t id, Millis /*now*/, bool /*ok*/) {
  if (queue_) {
    if (!serving_ || serving_->id != id)
      throw std::invalid_argument("simulated drive: request " + std::to_string(id) +
                                  " is not the one the drive is serving");
    queue_->complete();
    serving_.reset();
    scratch_ = predicted_.at(id);
    predicted_.erase(id);
    return scratch_;
  }
  if (held() == 0 || held_[first_].id != id)
    throw std::invalid_argument("simulated drive: request " + std::to_string(id) +
                                " is not the next to complete");
  // Its slot is reused only by a later dispatched(): the reference outlives this call.
  return held_[first_++].prediction;
}

}  // namespace disksched
