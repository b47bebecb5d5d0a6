// C-LOOK, the one-way elevator (JW sec. 2; the 4.3BSD disksort): sweep toward higher
// positions serving every request on the way; when nothing lies ahead, return to the
// lowest requested position and sweep again. `by=lbn` is Hong's C-SCAN (Hong sec. 8:
// "services requests in ascending LBN order, starting over with the lowest LBN").
// C-SCAN is accepted as an alias: it dispatches in the same order, only its arm
// travels to the edge before returning (see look.cpp).
#include <fmt/format.h>

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/ordering.hpp"
#include "schedulers/seek/position_policy.hpp"

namespace disksched::seek {
namespace {

template <typename By>
class CLook final : public Scheduler {
 public:
  explicit CLook(const DeviceModel& m) : by_(m) {}
  std::string spec() const override { return fmt::format("clook:by={}", By::name); }
  void add(const Request& r) override { index_.insert(By::of(held_.insert(r)), 0, r); }
  bool remove(std::uint64_t id) override {
    const Request* r = held_.find(id);
    if (r == nullptr) return false;
    index_.erase(By::of(*r), 0, *r);
    held_.take(id);
    return true;
  }
  std::optional<Request> pick(Millis, const HeadState& head) override {
    if (index_.empty()) return std::nullopt;
    const auto* e = index_.at_or_above(by_.head(head));
    if (e == nullptr) e = index_.lowest();  // wrap around
    Request r = held_.take(e->key.id);
    index_.erase(By::of(r), 0, r);
    by_.dispatched(r);
    return r;
  }
  std::size_t size() const override { return held_.size(); }
  std::vector<Request> drain() override {
    std::vector<Request> out;
    for (const auto& [id, r] : held_) out.push_back(r);
    held_.clear();
    index_ = {};
    return out;
  }

 private:
  By by_;
  HeldRequests held_;
  PositionIndex<typename By::Pos> index_;
};

}  // namespace

AlgorithmInfo clook_algorithm() {
  AlgorithmInfo a;
  a.name = "clook";
  a.aliases = {"cscan", "c-look", "c-scan"};
  a.description =
      "one-way elevator: sweep toward higher positions, then return to the lowest request";
  a.source = "JW sec. 2 (one-way SCAN, 4.3BSD); Hong sec. 8 (C-SCAN by LBN)";
  a.params = {by_param("sweep order")};
  a.factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
    if (p.choice("by") == "lbn") return std::make_unique<CLook<ByLbn>>(m);
    return std::make_unique<CLook<ByCylinder>>(m);
  };
  return a;
}

}  // namespace disksched::seek
