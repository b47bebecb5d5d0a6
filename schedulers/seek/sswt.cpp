// SSWT, Shortest Seek With Threshold (Deodhar & Naik, "Proposed Solution" and
// pseudocode in sec. 4): every request carries a wait count, zero on arrival and
// incremented for each request still queued at every dispatch. If the largest wait
// count is at or over the threshold that request goes first ("when the wait count of
// a request becomes greater than or equal to the threshold value, preference is given
// to that request", sec. 6); otherwise SSTF by logical block number from the block
// after the last dispatch (DN's SSWT-LBN). DN found threshold 600 best on their boot
// workload.
//
// The wait count of a request is the number of dispatches since it was added, so it is
// kept as the dispatch counter at arrival: the request with the largest count is the
// one added earliest, found in O(log n) without touching every request per dispatch.
#include <map>

#include <fmt/format.h>

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/lbn_head.hpp"
#include "schedulers/seek/ordering.hpp"

namespace disksched::seek {
namespace {

class Sswt final : public Scheduler {
 public:
  Sswt(double threshold, const DeviceModel& m)
      : threshold_(static_cast<std::uint64_t>(threshold)), head_(m) {}

  std::string spec() const override { return fmt::format("sswt:threshold={}", threshold_); }

  void add(const Request& r) override {
    const Request& held = held_.insert(r);
    stamp_[held.id] = dispatches_;
    by_lbn_.insert(held.loc.lba, 0, held);
    by_age_.insert(Aged{dispatches_, arrival_key(held)});
  }

  bool remove(std::uint64_t id) override {
    const Request* r = held_.find(id);
    if (r == nullptr) return false;
    forget(*r);
    held_.take(id);
    return true;
  }

  std::optional<Request> pick(Millis, const HeadState& head) override {
    if (held_.empty()) return std::nullopt;
    std::uint64_t id;
    const Aged& oldest = *by_age_.begin();
    if (dispatches_ - oldest.stamp >= threshold_)
      id = oldest.key.id;
    else
      id = by_lbn_.nearest(head_.at(head))->key.id;
    Request r = held_.take(id);
    forget(r);
    head_.dispatched(r);
    ++dispatches_;  // every request still queued waited one more dispatch
    return r;
  }

  std::size_t size() const override { return held_.size(); }

  std::vector<Request> drain() override {
    std::vector<Request> out = held_.take_all();
    by_lbn_ = {};
    by_age_.clear();
    stamp_.clear();
    return out;
  }

  // The wait count DN define, for tests and logs.
  std::uint64_t wait_count(std::uint64_t id) const { return dispatches_ - stamp_.at(id); }

 private:
  struct Aged {
    std::uint64_t stamp;  // dispatch counter when added
    ArrivalKey key;
    bool operator<(const Aged& o) const {
      return stamp != o.stamp ? stamp < o.stamp : key < o.key;
    }
  };
  void forget(const Request& r) {
    auto s = stamp_.find(r.id);
    by_age_.erase(Aged{s->second, arrival_key(r)});
    by_lbn_.erase(r.loc.lba, 0, r);
    stamp_.erase(s);
  }

  std::uint64_t threshold_;
  LbnHead head_;
  HeldRequests held_;
  PositionIndex<std::uint64_t> by_lbn_;
  std::set<Aged> by_age_;
  std::unordered_map<std::uint64_t, std::uint64_t> stamp_;
  std::uint64_t dispatches_ = 0;
};

}  // namespace

AlgorithmInfo sswt_algorithm() {
  return {
      .name = "sswt",
      .description =
          "shortest seek with threshold: a request waiting threshold dispatches goes first, else SSTF by LBN",
      .source = "DN sec. 4-6",
      .params = {count_param("threshold", "dispatches",
                             "wait count (dispatches a request has waited) at which it overrides SSTF",
                             600, 0, 1e9)},
      .factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
        return std::make_unique<Sswt>(p.number("threshold"), m);
      },
  };
}

}  // namespace disksched::seek
