// BSATF: Batched Shortest Access Time First (JW sec. 5.2).
//
// "Processing all the requests that are currently on the queue to completion before
// admitting any more", greedily by access time. When a pick finds the batch empty,
// every request then held becomes the new batch; arrivals wait in the pool for the
// next one. Forward progress is guaranteed: a request is served at the latest in the
// batch taken after its arrival. Inside a batch the choice is SATF from the actual
// head state at each pick (JW's greedy), by the cell search.
#include <memory>

#include "schedulers/rotational/access_index.hpp"
#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/batching.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

class Bsatf final : public Scheduler {
 public:
  Bsatf(const DeviceModel& model, std::string spec, const Params& p)
      : spec_(std::move(spec)),
        trigger_(BatchTrigger::from(p)),
        pool_(model, /*track_age=*/!trigger_.continuous),
        batch_(model, false) {}

  std::string spec() const override { return spec_; }
  void add(const Request& r) override { pool_.insert(r); }
  bool relocate(const Request& r) override { return pool_.relocate(r) || batch_.relocate(r); }
  bool remove(std::uint64_t id) override {
    return batch_.erase(id).has_value() || pool_.erase(id).has_value();
  }
  std::size_t size() const override { return pool_.size() + batch_.size(); }
  std::vector<Request> drain() override {
    auto out = batch_.drain();
    for (auto& r : pool_.drain()) out.push_back(std::move(r));
    return out;
  }

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    if (batch_.empty() && !pool_.empty() && trigger_.fires(now, pool_))
      for (const auto& r : pool_.drain()) batch_.insert(r);
    AccessIndex& from = batch_.empty() ? pool_ : batch_;
    AccessIndex::Query q;
    q.head = head;
    q.now = now;
    const Request* c = from.best(q).req;
    if (c == nullptr) return std::nullopt;
    return from.erase(c->id);
  }

  std::size_t batch_size() const { return batch_.size(); }

 private:
  std::string spec_;
  BatchTrigger trigger_;
  AccessIndex pool_;   // waiting for the next batch (or served by SATF between batches)
  AccessIndex batch_;  // the batch being served
};

}  // namespace

AlgorithmInfo bsatf_algorithm() {
  return {
      .name = "bsatf",
      .description = "batched SATF: serve everything queued, greedily, before admitting more",
      .source = "JW sec. 5.2",
      .needs_rotation = true,
      .params = batch_params(),
      .factory = spec_factory<Bsatf>(bsatf_algorithm),
  };
}

}  // namespace disksched::rotational
