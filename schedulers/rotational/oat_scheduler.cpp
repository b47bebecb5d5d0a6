// The `oat` scheduler: JW's batch look-ahead experiments of sec. 4.1 as schedulers.
//
// The "queue" JW speak of is arrival order: a window is the `batch` oldest requests.
//  mode=short-sighted: "optimally scheduled batches of 6 requests (taken from the head
//    of the queue)": take the window, serve it in its OAT order, then the next window.
//  mode=sliding: "a sliding window OAT algorithm that pulled in the next request from
//    the queue as soon as the first had been scheduled and dispatched": at every pick
//    the OAT order of the current window from the head state; its first goes.
//  mode=greedy: "a 'short-sighted' greedy algorithm that looked at only the first 6
//    requests on the queue": SATF among the window.
// JW found all three far worse than full greedy (SATF over the whole queue): 1.84,
// 1.75 and 1.73 times its time; the reproduction lives in the simulator.
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/oat.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

enum class OatMode { ShortSighted, Sliding, Greedy };

class OatScheduler final : public Scheduler {
 public:
  OatScheduler(const DeviceModel& model, std::string spec, std::size_t batch, OatMode mode)
      : model_(model), spec_(std::move(spec)), batch_(batch), mode_(mode) {}

  std::string spec() const override { return spec_; }
  void add(const Request& r) override {
    if (key_of_.count(r.id) != 0)
      throw std::invalid_argument("request id " + std::to_string(r.id) + " is already held");
    key_of_.emplace(r.id, Key{r.arrival_ms, r.id});
    queue_.emplace(Key{r.arrival_ms, r.id}, r);
  }
  bool remove(std::uint64_t id) override {
    auto it = key_of_.find(id);
    if (it == key_of_.end()) return false;
    queue_.erase(it->second);
    key_of_.erase(it);
    for (auto p = plan_.begin(); p != plan_.end(); ++p)
      if (p->id == id) {
        plan_.erase(p);
        break;
      }
    return true;
  }
  std::size_t size() const override { return key_of_.size(); }
  std::vector<Request> drain() override {
    std::vector<Request> out;
    for (auto& r : plan_) out.push_back(r);
    for (auto& [k, r] : queue_) out.push_back(r);
    plan_.clear();
    queue_.clear();
    key_of_.clear();
    return out;
  }

  std::optional<Request> pick(Millis /*now*/, const HeadState& head) override {
    if (mode_ == OatMode::ShortSighted) {
      if (plan_.empty()) {
        std::vector<Request> window = take_window();
        if (window.empty()) return std::nullopt;
        for (std::size_t i : optimal_order(model_, head, window).order) plan_.push_back(window[i]);
      }
      Request r = plan_.front();
      plan_.pop_front();
      key_of_.erase(r.id);
      return r;
    }
    std::vector<Request> window;
    for (auto it = queue_.begin(); it != queue_.end() && window.size() < batch_; ++it)
      window.push_back(it->second);
    if (window.empty()) return std::nullopt;
    const Schedule s = mode_ == OatMode::Sliding ? optimal_order(model_, head, window)
                                                 : greedy_order(model_, head, window);
    Request r = window[s.order.front()];
    queue_.erase(Key{r.arrival_ms, r.id});
    key_of_.erase(r.id);
    return r;
  }

 private:
  struct Key {
    Millis arrival;
    std::uint64_t id;
    bool operator<(const Key& o) const {
      return arrival != o.arrival ? arrival < o.arrival : id < o.id;
    }
  };

  // Moves the `batch_` oldest requests out of the queue (short-sighted mode).
  std::vector<Request> take_window() {
    std::vector<Request> w;
    while (!queue_.empty() && w.size() < batch_) {
      w.push_back(queue_.begin()->second);
      queue_.erase(queue_.begin());
    }
    return w;
  }

  const DeviceModel& model_;
  std::string spec_;
  std::size_t batch_;
  OatMode mode_;
  std::map<Key, Request> queue_;                   // waiting, in arrival order
  std::unordered_map<std::uint64_t, Key> key_of_;  // every held request (queue or plan)
  std::deque<Request> plan_;                       // short-sighted: the batch in OAT order
};

}  // namespace

AlgorithmInfo oat_algorithm() {
  return {
      .name = "oat",
      .description = "optimal access time over a window of the oldest requests (batched, sliding "
                     "or greedy look-ahead)",
      .source = "JW sec. 4.1",
      .needs_rotation = true,
      .params = {
          count_param("batch", "requests", "window: how many of the oldest requests are ordered together",
                    6, 1, static_cast<double>(kMaxOatBatch)),
          choice_param("mode", "short-sighted: serve each window in its optimal order; sliding: optimal order "
                    "of the window at every pick; greedy: SATF within the window", {"short-sighted", "sliding", "greedy"}, "short-sighted"),
      },
      .factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
        const std::string& mode = p.choice("mode");
        const OatMode om = mode == "sliding" ? OatMode::Sliding
                           : mode == "greedy" ? OatMode::Greedy
                                              : OatMode::ShortSighted;
        return std::make_unique<OatScheduler>(m, format_spec(oat_algorithm(), p),
                                              static_cast<std::size_t>(p.number("batch")), om);
      },
  };
}

}  // namespace disksched::rotational
