// FCFS: requests in the order they arrived (JW sec. 2). The baseline every other
// algorithm is compared with, and the limit of ASATF(w) as w grows.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/ordering.hpp"

namespace disksched::seek {
namespace {

class Fcfs final : public Scheduler {
 public:
  std::string spec() const override { return "fcfs"; }

  void add(const Request& r) override {
    // Ids come increasing from the dispatch core: only a lower one needs the search.
    if (size() > 0 && r.id <= max_id_ && held(r.id))
      throw std::invalid_argument("scheduler: request id " + std::to_string(r.id) +
                                  " is already held");
    max_id_ = size() > 0 ? std::max(max_id_, r.id) : r.id;
    // Requests come almost always in arrival order (a request released from the
    // overlap rule is the exception): append, else insert in its place.
    if (head_ == held_.size() || arrival_key(held_.back()) < arrival_key(r)) {
      held_.push_back(r);
      return;
    }
    const auto at = std::upper_bound(
        held_.begin() + static_cast<std::ptrdiff_t>(head_), held_.end(), arrival_key(r),
        [](const ArrivalKey& k, const Request& x) { return k < arrival_key(x); });
    held_.insert(at, r);
  }

  bool remove(std::uint64_t id) override {
    const auto it = find(id);
    if (it == held_.end()) return false;
    held_.erase(it);
    compact();
    return true;
  }

  std::optional<Request> pick(Millis /*now*/, const HeadState& /*head*/) override {
    // The prefix picked before is dropped first, so that the pick is copied straight
    // into the caller's optional (a Request is large; a named one was copied twice).
    compact();
    if (head_ == held_.size()) return std::nullopt;
    return std::optional<Request>(std::in_place, held_[head_++]);
  }

  std::size_t size() const override { return held_.size() - head_; }
  bool uses_locations() const override { return false; }
  bool uses_head() const override { return false; }

  std::vector<Request> drain() override {
    std::vector<Request> out(held_.begin() + static_cast<std::ptrdiff_t>(head_), held_.end());
    held_.clear();
    head_ = 0;
    return out;
  }

 private:
  std::vector<Request>::iterator find(std::uint64_t id) {
    return std::find_if(held_.begin() + static_cast<std::ptrdiff_t>(head_), held_.end(),
                        [&](const Request& x) { return x.id == id; });
  }
  bool held(std::uint64_t id) { return find(id) != held_.end(); }

  // The picked prefix is dropped when empty (cheap: nothing moves) or when it is most
  // of the vector; so the storage is reused without an allocation per request.
  void compact() {
    if (head_ == held_.size()) {
      held_.clear();
      head_ = 0;
    } else if (head_ >= 64 && head_ * 2 >= held_.size()) {
      held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  // Held requests from held_[head_] on, in (arrival, id) order.
  std::vector<Request> held_;
  std::size_t head_ = 0;
  std::uint64_t max_id_ = 0;  // no held request has a higher id
};

}  // namespace

AlgorithmInfo fcfs_algorithm() {
  return {
      .name = "fcfs",
      .aliases = {"fifo", "noop"},
      .description = "first come, first served: requests in arrival order",
      .source = "JW sec. 2",
      .factory = [](const Params&, const DeviceModel&) { return std::make_unique<Fcfs>(); },
  };
}

}  // namespace disksched::seek
