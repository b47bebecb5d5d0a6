// C-LOOK, the one-way elevator (JW sec. 2; the 4.3BSD disksort): sweep toward higher
// positions serving every request on the way; when nothing lies ahead, return to the
// lowest requested position and sweep again. `by=lbn` is Hong's C-SCAN (Hong sec. 8:
// "services requests in ascending LBN order, starting over with the lowest LBN").
// C-SCAN (cscan.cpp) dispatches in the same order, but its arm runs on to the high edge
// and back to the low edge between sweeps.

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/ordering.hpp"
#include "schedulers/seek/position_scheduler.hpp"
#include "schedulers/seek/position_policy.hpp"

namespace disksched::seek {
namespace {

template <typename By>
class CLook final : public PositionScheduler<By> {
 public:
  using PositionScheduler<By>::PositionScheduler;

 private:
  using Entry = typename PositionScheduler<By>::Index::Entry;
  const Entry* choose(typename By::Pos h, const HeadState&) override {
    return this->index().circular_look(h);
  }
};

}  // namespace

AlgorithmInfo clook_algorithm() {
  return {
      .name = "clook",
      .aliases = {"c-look"},
      .description =
          "one-way elevator: sweep toward higher positions, then return to the lowest request",
      .source = "JW sec. 2 (one-way SCAN, 4.3BSD); Hong sec. 8 (C-SCAN by LBN)",
      .params = {by_param("sweep order")},
      .factory = by_position_factory<CLook>(clook_algorithm),
  };
}

}  // namespace disksched::seek
