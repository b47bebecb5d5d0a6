// SATFDF(N, D): Shortest Access Time First with Delayed Forcing (JW sec. 5.1,
// variation 2 of the list after Fig. 7).
//
// Like SATFUF, but the forced target z gets D whole rotations of slack: when z becomes
// the target, its deadline is now + T(h->z) + D rotations (Fig. 7's
// t + Taccess(h->z) + S*D). Until then requests are taken greedily (shortest access
// first) among those that still let z start by the deadline,
// t + T(h->r) + length(r) + T(r->z) <= deadline; z itself is always eligible and is
// taken when it is the shortest or nothing else fits. JW's text names the algorithm
// SATFDF(N) and calls N "the number of requests swallowed up"; here N counts the
// forced requests as in SATFUF(N) and D the rotations of slack (JW: "e.g. 5").
#include <memory>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/forcing.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

class Satfdf final : public DelayedForcingScheduler {
 public:
  using DelayedForcingScheduler::DelayedForcingScheduler;

 protected:
  std::uint64_t forced_choice(Millis now, const HeadState& head) override {
    const Request& z = target(head);
    AccessIndex::Query q;
    q.head = head;
    q.now = now;
    const auto c = index_.best(q, [&](const Request& r, std::uint64_t, Millis) {
      return r.id == z.id || fits_before(head, r, z, deadline());
    });
    return c.req != nullptr ? c.req->id : z.id;
  }
};

}  // namespace

AlgorithmInfo satfdf_algorithm() {
  return {
      .name = "satfdf",
      .description = "SATF with delayed forcing: the forced oldest must start within D rotations; "
                     "greedy SATF fills the gap",
      .source = "JW sec. 5.1",
      .needs_rotation = true,
      .params = delayed_forcing_params(),
      .factory = spec_factory<Satfdf>(satfdf_algorithm),
  };
}

}  // namespace disksched::rotational
