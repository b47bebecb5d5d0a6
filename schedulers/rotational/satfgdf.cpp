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
#include <algorithm>
#include <memory>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/area_heuristic.hpp"
#include "schedulers/rotational/forcing.hpp"
#include "schedulers/rotational/ranking.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

// What ranks the requests that fit before the forced one: JW's quadratic fit of the area
// (their choice), the exact area it approximates, or no guidance at all (the request that
// ends soonest: an ablation that shows what the guiding itself changes).
enum class Guide { Area, Exact, End };

class Satfgdf final : public DelayedForcingScheduler {
 public:
  Satfgdf(const DeviceModel& model, std::string spec, const Params& p, Guide guide)
      : DelayedForcingScheduler(model, std::move(spec), p), area_(model), guide_(guide) {}

 protected:
  std::uint64_t forced_choice(Millis, const HeadState& head) override {
    const Request& z = target(head);
    Rank best;
    index_.for_each([&](const Request& r, std::uint64_t) {
      if (r.id == z.id) return;
      const Cost c = model_.service(head, r.op, r.offset, r.length);
      if (c.end.time_ms + model_.positioning_ms(c.end, z.loc) > deadline() + kFitSlackMs) return;
      const Rank rank = Rank::of(key(c.end, z), r);

      if (before(rank, best)) best = rank;
    });
    return best.found ? best.id : z.id;
  }

 private:
  // Smaller goes first: -H (largest area first), or the end time for Guide::End.
  double key(const HeadState& end, const Request& z) const {
    const std::int64_t dc = end.cylinder - z.loc.cylinder;
    const Millis left = deadline() - end.time_ms;
    switch (guide_) {
      case Guide::Area: return -area_.value(dc, left);
      case Guide::Exact: return -area_.area(dc, std::max(0.0, left / area_.sector_ms()));
      case Guide::End: break;
    }
    return end.time_ms;
  }

  AreaHeuristic area_;
  Guide guide_;
};

std::vector<ParamSpec> satfgdf_params() {
  std::vector<ParamSpec> ps = delayed_forcing_params();
  ps.push_back(choice_param(
      "guide",
      "what ranks the requests that fit before the forced one: area = JW's quadratic fit "
      "of the area still in reach, exact = that area itself, end = the one that ends "
      "soonest (no guidance; an ablation)",
      {"area", "exact", "end"}, "area"));
  ps.back().hidden = true;  // an ablation for the benches, not a user choice
  return ps;
}

}  // namespace

AlgorithmInfo satfgdf_algorithm() {
  return {
      .name = "satfgdf",
      .description = "SATF with guided delayed forcing: fill the slack before the forced oldest "
                     "by JW's quadratic 'area' heuristic",
      .source = "JW sec. 5.1, Fig. 7-9",
      .needs_rotation = true,
      .params = satfgdf_params(),
      .factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
        const std::string g = p.choice("guide");
        const Guide guide = g == "exact" ? Guide::Exact : g == "end" ? Guide::End : Guide::Area;
        return std::make_unique<Satfgdf>(m, format_spec(satfgdf_algorithm(), p), p, guide);
      },
  };
}

}  // namespace disksched::rotational
