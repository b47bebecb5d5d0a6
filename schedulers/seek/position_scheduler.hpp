// What SSTF, the elevators (LOOK, C-LOOK, SCAN, C-SCAN) share: the held requests and an
// index by position (By: cylinder or LBN). Each algorithm only says which indexed entry
// goes next, and (SCAN, C-SCAN) where the arm must travel first.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/scheduler.hpp"
#include "schedulers/seek/ordering.hpp"

namespace disksched::seek {

template <typename By>
class PositionScheduler : public Scheduler {
 public:
  PositionScheduler(const DeviceModel& m, std::string spec) : spec_(std::move(spec)), by_(m) {}

  std::string spec() const override { return spec_; }

  void add(const Request& r) override { index_.insert(By::of(held_.insert(r)), 0, r); }
  bool remove(std::uint64_t id) override {
    const Request* r = held_.find(id);
    if (r == nullptr) return false;
    index_.erase(By::of(*r), 0, *r);
    held_.take(id);
    return true;
  }
  std::optional<Request> pick(Millis, const HeadState& head) override {
    if (index_.empty()) return std::nullopt;
    travel_ = Travel{};
    const auto* e = choose(by_.head(head), head);
    Request r = held_.take(e->key.id);
    r.travel = travel_;
    index_.erase(By::of(r), 0, r);
    by_.dispatched(r);
    return r;
  }
  std::size_t size() const override { return held_.size(); }
  std::vector<Request> drain() override {
    std::vector<Request> out = held_.take_all();
    index_ = {};
    return out;
  }

 protected:
  using Index = PositionIndex<typename By::Pos>;
  // The entry to dispatch, with the head at position `h` (in state `head`); the index
  // is not empty. May add stops to travel_.
  virtual const typename Index::Entry* choose(typename By::Pos h, const HeadState& head) = 0;
  const Index& index() const { return index_; }
  Travel travel_;  // the stops before the request choose() returns

 private:
  std::string spec_;
  By by_;
  HeldRequests held_;
  Index index_;
};

}  // namespace disksched::seek
