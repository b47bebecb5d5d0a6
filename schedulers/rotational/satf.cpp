// SATF: Shortest Access Time First (JW sec. 4.2; also called SPTF / STF).
//
// Greedy: from the predicted head state, the request whose access time (command
// overhead + seek + rotational wait, model.positioning_ms) is smallest goes next;
// ties go to the earliest arrival, then the lowest id. The choice is found by JW's
// cell-ordered search (access_index.hpp) without costing the whole queue.
#include <memory>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/indexed_scheduler.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

class Satf final : public IndexedScheduler {
 public:
  Satf(const DeviceModel& model, std::string spec, const Params& p)
      : IndexedScheduler(model, std::move(spec), false), scan_(p.choice("search") == "scan") {}

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    AccessIndex::Query q;
    q.head = head;
    q.now = now;
    return take((scan_ ? index_.best_scan(q) : index_.best(q)).req);
  }

 private:
  bool scan_;
};

}  // namespace

AlgorithmInfo satf_algorithm() {
  return {
      .name = "satf",
      .aliases = {"sptf", "stf"},
      .description = "shortest access time first: seek plus rotational wait, greedy",
      .source = "JW sec. 4.2, Fig. 4-5",
      .needs_rotation = true,
      .params = {search_param()},
      .factory = spec_factory<Satf>(satf_algorithm),
  };
}

}  // namespace disksched::rotational
