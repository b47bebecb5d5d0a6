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
#include "schedulers/seek/position_scheduler.hpp"
#include "schedulers/seek/position_policy.hpp"

namespace disksched::seek {
namespace {

template <typename By>
class Look final : public PositionScheduler<By> {
 public:
  using PositionScheduler<By>::PositionScheduler;
  std::string spec() const override { return fmt::format("look:by={}", By::name); }

 private:
  using Entry = typename PositionScheduler<By>::Index::Entry;
  const Entry* choose(typename By::Pos h) override {
    const auto& idx = this->index();
    const Entry* e = up_ ? idx.at_or_above(h) : idx.at_or_below(h);
    if (e == nullptr) {  // nothing ahead: reverse
      up_ = !up_;
      e = up_ ? idx.at_or_above(h) : idx.at_or_below(h);
    }
    return e;
  }
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
