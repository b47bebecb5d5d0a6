#include "emulator/diskemu/realtime_device.hpp"

namespace disksched::diskemu {

RealTimeDevice::Turn::Turn(RealTimeDevice& d)
    : dev(d), ticket(d.next_ticket_.fetch_add(1, std::memory_order_relaxed)),
      arrival_ns(d.clock_.now_ns()) {
  // Admission is short (a model evaluation and perhaps a memcpy), so a few spins usually
  // suffice before parking on the futex.
  for (int i = 0; i < 64; ++i)
    if (dev.now_serving_.load(std::memory_order_acquire) == ticket) return;
  for (;;) {
    std::uint64_t serving = dev.now_serving_.load(std::memory_order_acquire);
    if (serving == ticket) return;
    dev.now_serving_.wait(serving, std::memory_order_acquire);
  }
}

RealTimeDevice::Turn::~Turn() {
  dev.now_serving_.store(ticket + 1, std::memory_order_release);
  dev.now_serving_.notify_all();
}

void RealTimeDevice::pick(Nanos now) {
  if (serving_ || !queue_->start(timebase_.to_model(now))) return;
  const std::uint64_t tag = queue_->in_service()->tag;
  if (tag != *waiting_.begin()) ++passed_;
  waiting_.erase(tag);
  serving_ = tag;
  picked_.notify_all();
}

void RealTimeDevice::finish_queued() {
  queue_->complete();
  serving_.reset();
  pick(clock_.now_ns());
}

RealTimeDevice::QueueCounts RealTimeDevice::queue_counts() const {
  if (!queue_) return {};
  std::lock_guard lock(queue_mutex_);
  return {passed_, queue_->forced()};
}

std::size_t RealTimeDevice::queue_waiting() const {
  if (!queue_) return 0;
  std::lock_guard lock(queue_mutex_);
  return waiting_.size();
}

Nanos RealTimeDevice::complete(const Admission& a) {
  const bool woke = clock_.sleep_until(a.due_ns, a.spin_budget_ns);
  if (queue_) {
    // Even an abandoned wait frees the mechanism, or the commands behind it would hang.
    std::lock_guard lock(queue_mutex_);
    finish_queued();
  }
  if (!woke) throw Abandoned{};
  const Nanos late = clock_.now_ns() - a.due_ns;
  if (stats_) stats_->record(a.service.op, a.service.service_ms(), a.service.wait_ms(), late);
  return late;
}

void RealTimeDevice::release(const Admission& /*a*/) {
  if (!queue_) return;
  std::lock_guard lock(queue_mutex_);
  finish_queued();
}

void RealTimeDevice::failed(Op op) {
  if (stats_) stats_->record_error(op);
}

}  // namespace disksched::diskemu
