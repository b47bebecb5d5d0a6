// SCAN (Denning, as JW sec. 1 describe it): "the disk arm is alternately moved from one
// edge of the disk to the other and back. As the arm crosses each cylinder, requests for
// it are serviced." It dispatches in LOOK's order (look.cpp); what sets it apart is the
// arm's trip on to the edge once the last request ahead is served, before it turns. That
// trip is a stop on the way to the first request of the new sweep (request.hpp, Travel),
// so requests near the far edge wait for a full sweep, the cost and the fairness the
// textbook algorithm has. JW's Fig. 10 compares against this SCAN; V(1) equals it in
// order (Geist & Daniel via JW sec. 2).

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/edge.hpp"
#include "schedulers/seek/ordering.hpp"
#include "schedulers/seek/position_policy.hpp"
#include "schedulers/seek/position_scheduler.hpp"

namespace disksched::seek {
namespace {

template <typename By>
class Scan final : public PositionScheduler<By> {
 public:
  Scan(const DeviceModel& m, std::string spec)
      : PositionScheduler<By>(m, std::move(spec)), edges_(m) {}

 private:
  using Entry = typename PositionScheduler<By>::Index::Entry;
  const Entry* choose(typename By::Pos h, const HeadState& head) override {
    if (const Entry* e = this->index().ahead(h, up_)) return e;
    // Nothing ahead: on to the edge (unless the arm is there), then turn.
    const bool at_edge = up_ ? h >= By::high_edge(edges_) : h <= By::low_edge(edges_);
    if (!at_edge) this->travel_.add(edges_.soonest(up_, head));
    up_ = !up_;
    return this->index().ahead(h, up_);
  }
  Edges edges_;
  bool up_ = true;  // sweeping toward higher positions
};

}  // namespace

AlgorithmInfo scan_algorithm() {
  return {
      .name = "scan",
      .description =
          "elevator edge to edge: serve requests on the way, run on to the edge, then turn",
      .source = "JW sec. 1-2 (SCAN, Denning)",
      .params = {by_param("sweep order")},
      .factory = by_position_factory<Scan>(scan_algorithm),
  };
}

}  // namespace disksched::seek
