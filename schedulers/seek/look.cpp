// LOOK, the elevator (JW sec. 2, after Denning's SCAN): sweep in one direction serving
// every request on the way, reverse when nothing lies ahead. Requests at the head's
// position count as ahead. `by=lbn` sweeps over block numbers (the Linux form).
//
// SCAN is accepted as an alias. Textbook SCAN differs from LOOK only in what the arm
// does once the last request of a sweep is served (it travels on to the edge of the
// disk before reversing); the order in which requests are dispatched is the same. A
// scheduler here only chooses the next request and the device moves the arm straight
// to it, so a separate SCAN would dispatch identically; JW's own SCAN "stops at each
// cylinder with pending requests" (sec. 2), which is this algorithm. The same holds for
// C-SCAN and C-LOOK (clook.cpp).
#include <fmt/format.h>

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/ordering.hpp"
#include "schedulers/seek/position_policy.hpp"

namespace disksched::seek {
namespace {

template <typename By>
class Look final : public Scheduler {
 public:
  explicit Look(const DeviceModel& m) : by_(m) {}
  std::string spec() const override { return fmt::format("look:by={}", By::name); }
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
    const auto h = by_.head(head);
    const auto* e = up_ ? index_.at_or_above(h) : index_.at_or_below(h);
    if (e == nullptr) {  // nothing ahead: reverse
      up_ = !up_;
      e = up_ ? index_.at_or_above(h) : index_.at_or_below(h);
    }
    Request r = held_.take(e->key.id);
    index_.erase(By::of(r), 0, r);
    by_.dispatched(r);
    return r;
  }
  std::size_t size() const override { return held_.size(); }
  std::vector<Request> drain() override {
    std::vector<Request> out;
    for (const auto& [id, r] : held_) out.push_back(r);
    held_.clear();
    index_ = {};
    return out;
  }

 private:
  By by_;
  HeldRequests held_;
  PositionIndex<typename By::Pos> index_;
  bool up_ = true;  // sweeping toward higher positions
};

}  // namespace

AlgorithmInfo look_algorithm() {
  AlgorithmInfo a;
  a.name = "look";
  a.aliases = {"scan", "elevator"};
  a.description =
      "elevator: sweep serving requests on the way, reverse after the last one ahead";
  a.source = "JW sec. 2 (SCAN, Denning)";
  a.params = {by_param("sweep order")};
  a.factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
    if (p.choice("by") == "lbn") return std::make_unique<Look<ByLbn>>(m);
    return std::make_unique<Look<ByCylinder>>(m);
  };
  return a;
}

}  // namespace disksched::seek
