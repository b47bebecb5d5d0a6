// SATFGDF(N, D): Shortest Access Time First with Guided Delayed Forcing (JW sec. 5.1,
// Fig. 7, with the quadratic "area" heuristic of Fig. 8-9, area_heuristic.hpp).
//
// As SATFDF, the forced target z must start by deadline = t + T(h->z) + D rotations.
// Among the requests r that still let z start by then (Fig. 7's test
// t + T(h->r) + length(r) + T(r->z) <= deadline), the one maximising
// H = q0(R) + q2(R) * (cyl(end of r) - cyl(z))^2 goes next, R being the time left
// between r's end and the deadline: the head is coaxed toward z while keeping the most
// disk in reach. z is taken when nothing else fits (JW's Fig. 7 starts bestsofar at z
// but leaves H(z) undefined; after z is served there is nothing left to reach). As JW
// note, the heuristic needs the whole queue examined at each forced step.
#include <memory>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/area_heuristic.hpp"
#include "schedulers/rotational/forcing.hpp"
#include "schedulers/rotational/ranking.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

class Satfgdf final : public DelayedForcingScheduler {
 public:
  Satfgdf(const DeviceModel& model, std::string spec, Millis age_ms, std::size_t n, double d)
      : DelayedForcingScheduler(model, std::move(spec), age_ms, n, d), area_(model) {}

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    if (index_.empty()) return std::nullopt;
    if (!update_forcing(now)) return take(satf_choice(head, now)->id);
    const Request& z = target(head);
    Rank best;
    index_.for_each([&](const Request& r, std::uint64_t) {
      if (r.id == z.id) return;
      const Cost c = model_.service(head, r.op, r.offset, r.length);
      if (c.end.time_ms + model_.positioning_ms(c.end, z.loc) > deadline() + kFitSlackMs) return;
      const double h = area_.value(c.end.cylinder - z.loc.cylinder, deadline() - c.end.time_ms);
      const Rank rank = Rank::of(-h, r);  // largest H first
      if (before(rank, best)) best = rank;
    });
    return take(best.found ? best.id : z.id);
  }

 private:
  AreaHeuristic area_;
};

}  // namespace

AlgorithmInfo satfgdf_algorithm() {
  AlgorithmInfo a;
  a.name = "satfgdf";
  a.description = "SATF with guided delayed forcing: fill the slack before the forced oldest "
                  "by JW's quadratic 'area' heuristic";
  a.source = "JW sec. 5.1, Fig. 7-9";
  a.needs_rotation = true;
  a.params = delayed_forcing_params();
  a.factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
    return std::make_unique<Satfgdf>(m, format_spec(satfgdf_algorithm(), p), p.number("age"),
                                     static_cast<std::size_t>(p.number("n")), p.number("d"));
  };
  return a;
}

}  // namespace disksched::rotational
