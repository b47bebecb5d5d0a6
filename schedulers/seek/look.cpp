// LOOK, the elevator (JW sec. 2, after Denning's SCAN): sweep in one direction serving
// every request on the way, reverse when nothing lies ahead ("stopping at each cylinder
// with pending requests"). Requests at the head's position count as ahead. `by=lbn`
// sweeps over block numbers (the Linux form). SCAN (scan.cpp) dispatches in the same
// order but runs the arm on to the edge of the disk before it turns.

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

 private:
  using Entry = typename PositionScheduler<By>::Index::Entry;
  const Entry* choose(typename By::Pos h, const HeadState&) override {
    return this->index().look(h, up_);
  }
  bool up_ = true;  // sweeping toward higher positions
};

}  // namespace

AlgorithmInfo look_algorithm() {
  return {
      .name = "look",
      .aliases = {"elevator"},
      .description =
          "elevator: sweep serving requests on the way, turn after the last one ahead",
      .source = "JW sec. 2 (SCAN \"stopping at each cylinder with pending requests\")",
      .params = {by_param("sweep order")},
      .factory = by_position_factory<Look>(look_algorithm),
  };
}

}  // namespace disksched::seek
