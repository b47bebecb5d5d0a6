// FCFS: requests in the order they arrived (JW sec. 2). The baseline every other
// algorithm is compared with, and the limit of ASATF(w) as w grows.
#include <map>

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/ordering.hpp"

namespace disksched::seek {
namespace {

class Fcfs final : public Scheduler {
 public:
  std::string spec() const override { return "fcfs"; }

  void add(const Request& r) override {
    const Request& held = held_.insert(r);
    order_.emplace(arrival_key(held), held.id);
  }

  bool remove(std::uint64_t id) override {
    const Request* r = held_.find(id);
    if (r == nullptr) return false;
    order_.erase(arrival_key(*r));
    held_.take(id);
    return true;
  }

  std::optional<Request> pick(Millis /*now*/, const HeadState& /*head*/) override {
    if (order_.empty()) return std::nullopt;
    auto first = order_.begin();
    std::uint64_t id = first->second;
    order_.erase(first);
    return held_.take(id);
  }

  std::size_t size() const override { return held_.size(); }

  std::vector<Request> drain() override {
    std::vector<Request> out = held_.take_all();
    order_.clear();
    return out;
  }

 private:
  HeldRequests held_;
  std::map<ArrivalKey, std::uint64_t> order_;
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
