// C-SCAN, the one-way SCAN (JW sec. 2: "sweep in only one direction, and when the end of
// the disk is reached, to seek back to the beginning"): requests are served in C-LOOK's
// order (clook.cpp), but after the last request of a sweep the arm runs on to the high
// edge and returns to the low edge before the next sweep starts, serving nothing on the
// way back. Both trips are stops before the first request of the next sweep (request.hpp,
// Travel). Hong's "C-SCAN" (Hong sec. 8) restarts at the lowest LBN, which is C-LOOK by
// LBN (`clook:by=lbn`).

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/edge.hpp"
#include "schedulers/seek/ordering.hpp"
#include "schedulers/seek/position_policy.hpp"
#include "schedulers/seek/position_scheduler.hpp"

namespace disksched::seek {
namespace {

template <typename By>
class CScan final : public PositionScheduler<By> {
 public:
  CScan(const DeviceModel& m, std::string spec)
      : PositionScheduler<By>(m, std::move(spec)), edges_(m) {}

 private:
  using Entry = typename PositionScheduler<By>::Index::Entry;
  const Entry* choose(typename By::Pos h, const HeadState& head) override {
    const auto& idx = this->index();
    if (const Entry* e = idx.at_or_above(h)) return e;
    // Nothing ahead: on to the high edge, back to the low one, sweep again.
    HeadState at = head;
    if (h < By::high_edge(edges_)) {
      const std::uint64_t stop = edges_.soonest(true, at);
      this->travel_.add(stop);
      at = edges_.after(at, stop);
    }
    const Entry* first = idx.lowest();
    // The return trip ends at the low edge; a first request there ends it by itself.
    if (first->pos != By::low_edge(edges_)) this->travel_.add(edges_.soonest(false, at));
    return first;
  }
  Edges edges_;
};

}  // namespace

AlgorithmInfo cscan_algorithm() {
  return {
      .name = "cscan",
      .aliases = {"c-scan"},
      .description =
          "one-way elevator edge to edge: sweep up, run on to the high edge, return to the low edge",
      .source = "JW sec. 2 (one-way SCAN)",
      .params = {by_param("sweep order")},
      .factory = by_position_factory<CScan>(cscan_algorithm),
  };
}

}  // namespace disksched::seek
