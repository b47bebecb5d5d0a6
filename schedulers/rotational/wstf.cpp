// WSTF(T_max): Weighted Shortest Time First (Huang & Chiueh).
//
// RECONSTRUCTION: the seed survives only as keywords ("wstf applies aging access time
// computed candidate request queue", "estimated physical time multiplied aging
// factor longer request waits queue smaller chance" [sic: the longer it waits, the
// smaller its weighted time], "formula compute weighted disk access time tw weighted
// time real actual time maximum response time allowed empirical value waiting time
// queue"). Our reading: each request is ranked by
//     T_w = T_real * (1 - T_wait / T_max),
// T_real its predicted access time (model.positioning_ms), T_wait its time in the
// queue, T_max the maximum response time allowed (a parameter; the paper's empirical
// value is lost). The smallest T_w goes first. Past T_max the factor would turn
// negative and rank the farthest overdue request first; we clamp it at 0, so every
// overdue request ranks first and they go oldest first (the tie rule).
// The weight is multiplicative, which the additive cell bounds of access_index.hpp do
// not cover, so each pick costs every request (as Huang & Chiueh's own scheduler).
#include <algorithm>
#include <memory>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/indexed_scheduler.hpp"
#include "schedulers/rotational/ranking.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

class Wstf final : public IndexedScheduler {
 public:
  Wstf(const DeviceModel& model, std::string spec, const Params& p)
      : IndexedScheduler(model, std::move(spec), false), t_max_(p.number("tmax")) {}

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    Rank best;
    const Request* chosen = nullptr;
    index_.for_each([&](const Request& r, std::uint64_t) {
      const double factor = std::max(0.0, 1.0 - (now - r.arrival_ms) / t_max_);
      const Rank rank = Rank::of(model_.positioning_ms(head, r.loc) * factor, r);
      if (before(rank, best)) {
        best = rank;
        chosen = &r;
      }
    });
    return take(chosen);
  }

 private:
  Millis t_max_;
};

}  // namespace

AlgorithmInfo wstf_algorithm() {
  return {
      .name = "wstf",
      .description = "weighted STF: access time scaled by (1 - wait/T_max); overdue requests first "
                     "(reconstruction)",
      .source = "Huang & Chiueh (keywords only; reconstructed)",
      .needs_rotation = true,
      .params = {
          number_param("tmax", "ms", "T_max, the maximum response time allowed", 1000, 1, 3.6e6),
      },
      .factory = spec_factory<Wstf>(wstf_algorithm),
  };
}

}  // namespace disksched::rotational
