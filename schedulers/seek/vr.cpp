// V(R), Geist & Daniel's continuum between SSTF and SCAN, as JW describe it (sec. 2):
// "pick the next request according to SSTF, except to add a penalty of R times the
// total number of cylinders for reversing direction". V(0) is SSTF, V(1) is SCAN;
// V(0.2) is their suggested compromise. The direction is that of the last move the
// scheduler caused (up at start); a request on the head's cylinder needs no move and
// keeps it.
#include <cmath>

#include <fmt/format.h>

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/position_policy.hpp"
#include "schedulers/seek/position_scheduler.hpp"

namespace disksched::seek {
namespace {

class VR final : public PositionScheduler<ByCylinder> {
 public:
  VR(const DeviceModel& m, double r)
      : PositionScheduler(m, fmt::format("vr:r={}", r)),
        penalty_(r * static_cast<double>(std::max<std::int64_t>(m.cylinders(), 1))) {}

 protected:
  const Index::Entry* choose(std::int64_t h, const HeadState&) override {
    // The best candidate on each side is the nearest there; the penalty applies to a
    // whole side, so comparing the two nearest is enough.
    const auto* up = index().at_or_above(h);
    const auto* down = index().below(h);
    const auto* e = up;
    if (up == nullptr) {
      e = down;
    } else if (down != nullptr) {
      double cost_up = static_cast<double>(up->pos - h) + (!up_ && up->pos != h ? penalty_ : 0.0);
      double cost_down = static_cast<double>(h - down->pos) + (up_ ? penalty_ : 0.0);
      if (cost_down < cost_up || (cost_down == cost_up && down->key < up->key)) e = down;
    }
    if (e->pos != h) up_ = e->pos > h;
    return e;
  }

 private:
  double penalty_;  // cylinders
  bool up_ = true;
};

}  // namespace

AlgorithmInfo vr_algorithm() {
  return {
      .name = "vr",
      .aliases = {"v(r)", "vscan"},
      .description = "V(R): SSTF plus a penalty of R x cylinders for reversing; V(0)=SSTF, V(1)=SCAN",
      .source = "JW sec. 2 (Geist & Daniel 1987)",
      .params = {number_param("r", "", "reversal penalty as a fraction of the number of cylinders",
                              0.2, 0, 1)},
      .factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
        return std::make_unique<VR>(m, p.number("r"));
      },
  };
}

}  // namespace disksched::seek
