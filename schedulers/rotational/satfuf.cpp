// SATFUF(N): Shortest Access Time First with Urgent Forcing (JW sec. 5.1, Fig. 6).
//
// SATF until the oldest request is too old; then the N oldest are forced. The next
// forced target z (the one the head reaches first) is served at the earliest moment
// the head can reach it, T(h->z) from now; another request r goes first only if it
// fits in front of z without delaying it: T(h->r) + length(r) + T(r->z) <= T(h->z)
// (Fig. 6, in ms through model.service and model.positioning_ms), and among those
// fitting the shortest access wins. With N = 1 this is JW's SATFUF; N = infinity
// approaches a batch algorithm (sec. 5.1). The search is JW's cell search with z as
// the initial best, so only cells that could beat T(h->z) are costed.
#include <memory>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/forcing.hpp"
#include "schedulers/rotational/ranking.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

class Satfuf final : public ForcingScheduler {
 public:
  using ForcingScheduler::ForcingScheduler;

 protected:
  std::uint64_t forced_choice(Millis now, const HeadState& head) override {
    Millis tz = 0.0;
    const Request& z = *nearest_forced(head, &tz);
    const Millis latest = head.time_ms + tz;
    AccessIndex::Query q;
    q.head = head;
    q.now = now;
    q.initial = Rank::of(tz, z);
    const auto c = index_.best(q, [&](const Request& r, std::uint64_t, Millis) {
      return r.id != z.id && fits_before(head, r, z, latest);
    });
    return c.req != nullptr ? c.req->id : z.id;
  }
};

}  // namespace

AlgorithmInfo satfuf_algorithm() {
  return {
      .name = "satfuf",
      .description = "SATF with urgent forcing: once the oldest is too old, force the N oldest, "
                     "slotting in only requests that do not delay them",
      .source = "JW sec. 5.1, Fig. 6",
      .needs_rotation = true,
      .params = forcing_params(),
      .factory = spec_factory<Satfuf>(satfuf_algorithm),
  };
}

}  // namespace disksched::rotational
