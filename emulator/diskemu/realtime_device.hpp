// The virtual device played on a real (or injected) clock, for many threads at once.
//
// nbdkit calls the plugin from many worker threads (the PARALLEL thread model, so that a
// filter above can hold many requests). Each request takes a ticket; tickets are admitted
// to the device strictly in order (a ticket lock), which is the order the requests reach
// the device. At admission the request's arrival time (stamped when the ticket was taken)
// goes to the VirtualDevice, which says when it starts and completes; the data operation
// (a copy in or out of the store) runs then, before the next ticket is admitted, so data
// follows device order exactly. The thread then sleeps until the modelled completion and returns: requests
// are served one at a time in device time, while threads only wait in parallel.
//
// With a drive queue deeper than 1 (emulator/device/drive_queue.hpp) the device reorders
// what it holds: each request is submitted to the drive under a mutex and its thread
// waits until the firmware picks it; the pick happens when the mechanism is free (at
// once when idle, else when the thread of the command being served wakes at its
// completion). The picked thread runs its data operation at once, before the next pick,
// so data still follows device order.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "emulator/diskemu/clock.hpp"
#include "emulator/diskemu/device_stats.hpp"
#include "emulator/diskemu/timebase.hpp"
#include "emulator/device/drive_queue.hpp"
#include "emulator/device/virtual_device.hpp"

namespace disksched::diskemu {

struct Admission {
  Service service;      // device time
  Nanos arrival_ns = 0; // real time the request reached the device
  Nanos due_ns = 0;     // real time of the modelled completion
  // Real time from the previous request's completion (or this one's arrival, if later)
  // to this one's. The final busy-wait is kept within it, so that when requests are
  // queued back to back with service times shorter than the spin (timescale << 1), only
  // about one thread spins at a time.
  Nanos spin_budget_ns = 0;
};

class RealTimeDevice {
 public:
  RealTimeDevice(VirtualDevice& device, Clock& clock, Timebase timebase, DeviceStats* stats = nullptr)
      : device_(device), clock_(clock), timebase_(timebase), stats_(stats) {}
  // With the drive's own queue; depth 1 is the device above, exactly. Throws what
  // DriveQueue's constructor throws.
  RealTimeDevice(VirtualDevice& device, Clock& clock, Timebase timebase, DeviceStats* stats,
                 const DriveQueueOptions& queue)
      : RealTimeDevice(device, clock, timebase, stats) {
    if (queue.depth > 1) queue_ = std::make_unique<DriveQueue>(device, queue);
  }

  const Timebase& timebase() const { return timebase_; }
  VirtualDevice& device() { return device_; }

  // The drive queue's counters (zero without one): commands served while one submitted
  // before them still waited, and picks the age limit forced.
  struct QueueCounts {
    std::uint64_t passed = 0;
    std::uint64_t forced = 0;
  };
  QueueCounts queue_counts() const;
  // Requests submitted to the drive queue and not yet picked (0 without one).
  std::size_t queue_waiting() const;

  // Admits the request (see above) and runs `in_order()` (or `in_order(service)`) while
  // it holds the device. Throws what the model or `in_order` throws; later requests
  // proceed either way.
  template <class InOrder>
  Admission admit(Op op, std::uint64_t offset, std::uint32_t length, InOrder&& in_order,
                  bool fua = false) {
    if (queue_) return admit_queued(op, offset, length, std::forward<InOrder>(in_order), fua);
    Turn turn(*this);
    Admission a;
    a.arrival_ns = turn.arrival_ns;
    a.service = device_.serve(timebase_.to_model(a.arrival_ns), op, offset, length, fua);
    a.due_ns = timebase_.to_real(a.service.completion_ms);
    a.spin_budget_ns = a.due_ns - std::max(last_due_ns_, a.arrival_ns);
    last_due_ns_ = a.due_ns;
    if constexpr (std::is_invocable_v<InOrder, const Service&>)
      std::forward<InOrder>(in_order)(a.service);
    else
      std::forward<InOrder>(in_order)();
    return a;
  }

  // Runs `f(now)`, now in device time, between two admissions, in device order: an event
  // of the device's own (a power cut) that is no request.
  template <class F>
  void in_turn(F&& f) {
    if (queue_) {
      // With the drive's own queue the device is held by queue_mutex_, not by turns.
      std::lock_guard lock(queue_mutex_);
      std::forward<F>(f)(timebase_.to_model(clock_.now_ns()));
      return;
    }
    Turn turn(*this);
    std::forward<F>(f)(timebase_.to_model(turn.arrival_ns));
  }
  Admission admit(Op op, std::uint64_t offset, std::uint32_t length) {
    return admit(op, offset, length, [] {});
  }

  // Waits until the modelled completion, records the request in the statistics and
  // returns how late (ns, >= 0) the wait ended. Throws Abandoned if the clock gave up
  // waiting (the server is shutting down); nothing is recorded then.
  Nanos complete(const Admission& a);

  struct Abandoned {};

  // Records a request that failed after admission (no wait: the error is reported now).
  void failed(Op op);
  // A request failed after admission, before complete(): with a drive queue the firmware
  // picks the next command now instead of waiting for this one.
  void release(const Admission& a);

 private:
  template <class InOrder>
  Admission admit_queued(Op op, std::uint64_t offset, std::uint32_t length, InOrder&& in_order,
                         bool fua) {
    std::unique_lock lock(queue_mutex_);
    Admission a;
    a.arrival_ns = clock_.now_ns();
    const std::uint64_t tag = next_tag_++;
    queue_->submit(tag, timebase_.to_model(a.arrival_ns), op, offset, length, {}, fua);
    waiting_.insert(tag);
    pick(a.arrival_ns);
    picked_.wait(lock, [&] { return serving_ == tag; });
    const DriveQueue::Served& d = *queue_->in_service();
    a.service = d.service;
    a.due_ns = timebase_.to_real(a.service.completion_ms);
    a.spin_budget_ns = a.due_ns - std::max(last_due_ns_, a.arrival_ns);
    last_due_ns_ = a.due_ns;
    try {
      if constexpr (std::is_invocable_v<InOrder, const Service&>)
        std::forward<InOrder>(in_order)(a.service);
      else
        std::forward<InOrder>(in_order)();
    } catch (...) {
      finish_queued();  // the error is reported now; the next command goes on
      throw;
    }
    return a;
  }
  // The command being served is done: retire it and let the firmware pick the next.
  // Called with queue_mutex_ held.
  void finish_queued();
  void pick(Nanos now);

  // Holds the device for one admission: takes a ticket, stamps the arrival, waits for the
  // tickets before it; passes the device on when destroyed.
  struct Turn {
    explicit Turn(RealTimeDevice& d);
    ~Turn();
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    RealTimeDevice& dev;
    std::uint64_t ticket;
    Nanos arrival_ns;
  };

  VirtualDevice& device_;
  Clock& clock_;
  Timebase timebase_;
  DeviceStats* stats_;
  Nanos last_due_ns_ = 0;   // guarded by the ticket lock
  std::atomic<std::uint64_t> next_ticket_{0};
  std::atomic<std::uint64_t> now_serving_{0};

  // The drive's own queue (null: none, or depth 1), and who it serves.
  std::unique_ptr<DriveQueue> queue_;
  mutable std::mutex queue_mutex_;
  std::condition_variable picked_;
  std::optional<std::uint64_t> serving_;  // the tag being served
  std::set<std::uint64_t> waiting_;       // tags submitted, not yet picked
  std::uint64_t next_tag_ = 0;
  std::uint64_t passed_ = 0;
};

}  // namespace disksched::diskemu
