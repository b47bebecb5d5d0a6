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

Nanos RealTimeDevice::complete(const Admission& a) {
  if (!clock_.sleep_until(a.due_ns, a.spin_budget_ns)) throw Abandoned{};
  const Nanos late = clock_.now_ns() - a.due_ns;
  if (stats_) stats_->record(a.service.op, a.service.service_ms(), a.service.wait_ms(), late);
  return late;
}

void RealTimeDevice::failed(Op op) {
  if (stats_) stats_->record_error(op);
}

}  // namespace disksched::diskemu
