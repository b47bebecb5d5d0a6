// A first-come-first-served scheduler local to the simulator's tests, so they pin
// down the simulator itself whatever the registry holds.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "schedulers/scheduler.hpp"

namespace disksched::test {

class FifoScheduler final : public Scheduler {
 public:
  std::string spec() const override { return "test-fifo"; }
  void add(const Request& r) override { q_.push_back(r); }
  bool remove(std::uint64_t id) override {
    for (auto it = q_.begin(); it != q_.end(); ++it)
      if (it->id == id) {
        q_.erase(it);
        return true;
      }
    return false;
  }
  std::optional<Request> pick(Millis, const HeadState&) override {
    if (q_.empty()) return std::nullopt;
    // Earliest arrival, then lowest id (the interface's tie rule).
    auto best = q_.begin();
    for (auto it = q_.begin(); it != q_.end(); ++it)
      if (it->arrival_ms < best->arrival_ms ||
          (it->arrival_ms == best->arrival_ms && it->id < best->id))
        best = it;
    Request r = *best;
    q_.erase(best);
    return r;
  }
  std::size_t size() const override { return q_.size(); }
  std::vector<Request> drain() override {
    std::vector<Request> v(q_.begin(), q_.end());
    q_.clear();
    return v;
  }

 private:
  std::deque<Request> q_;
};

}  // namespace disksched::test
