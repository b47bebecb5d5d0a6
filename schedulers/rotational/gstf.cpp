// GSTF(G): Grouped Shortest Time First (Huang & Chiueh).
//
// RECONSTRUCTION: the Huang & Chiueh seed survives only as keywords ("gstf algorithm
// groups requests groups", "proceeds group requests current serviced group serviced",
// "group stf algorithm applied", "gstf better maximum response time stf"), so this is
// our reading, not their code: the disk is divided into groups of G consecutive
// cylinders; every request of the current group is served in shortest-access-time
// order (STF within the group); then the head moves to the next group holding
// requests in scan order (elevator: onward in the current direction, reversing at
// the last group that has any). Whether requests arriving in the current group
// while it is being served join it is not recoverable from the keywords:
// admit=all lets them join (a stream into one group can then hold the head there),
// admit=frozen serves only those present when the group was entered, which bounds
// every wait by one sweep.
#include <map>
#include <memory>

#include "schedulers/rotational/access_index.hpp"
#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {
namespace {

class Gstf final : public Scheduler {
 public:
  Gstf(const DeviceModel& model, std::string spec, const Params& p)
      : spec_(std::move(spec)),
        group_(static_cast<std::int64_t>(static_cast<std::size_t>(p.number("group")))),
        frozen_(p.choice("admit") == "frozen"),
        index_(model, false) {}

  std::string spec() const override { return spec_; }
  void add(const Request& r) override {
    index_.insert(r);
    ++count_[group_of(r.loc.cylinder)];
  }
  bool remove(std::uint64_t id) override { return take(id).has_value(); }
  std::size_t size() const override { return index_.size(); }
  std::vector<Request> drain() override {
    count_.clear();
    current_.reset();
    return index_.drain();
  }

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    if (index_.empty()) return std::nullopt;
    if (!current_) enter(group_of(head.cylinder));
    // At most: the current group, then the next one (entered afresh, so it admits
    // everything it holds).
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (count_.count(*current_) != 0) {
        AccessIndex::Query q;
        q.head = head;
        q.now = now;
        q.cyl_lo = *current_ * group_;
        q.cyl_hi = q.cyl_lo + group_ - 1;
        const std::uint64_t admitted_before = frozen_ ? entry_seq_ : index_.next_seq();
        const auto c = index_.best(q, [&](const Request&, std::uint64_t seq, Millis) {
          return seq < admitted_before;
        });
        if (c.req != nullptr) return take(c.req->id);
      }
      advance();
    }
    return std::nullopt;  // unreachable: a non-empty group entered afresh always yields
  }

 private:
  std::int64_t group_of(std::int64_t cylinder) const {
    return (cylinder < 0 ? 0 : cylinder) / group_;
  }

  void enter(std::int64_t g) {
    current_ = g;
    entry_seq_ = index_.next_seq();
  }

  // The next group holding requests in scan order; the same group, entered afresh,
  // when no other group holds any.
  void advance() {
    auto next = [&]() -> std::optional<std::int64_t> {
      if (dir_ > 0) {
        auto it = count_.upper_bound(*current_);
        if (it != count_.end()) return it->first;
      } else {
        auto it = count_.lower_bound(*current_);
        if (it != count_.begin()) return std::prev(it)->first;
      }
      return std::nullopt;
    };
    auto g = next();
    if (!g) {
      dir_ = -dir_;
      g = next();
    }
    enter(g ? *g : *current_);
  }

  std::optional<Request> take(std::uint64_t id) {
    auto r = index_.erase(id);
    if (r) {
      auto it = count_.find(group_of(r->loc.cylinder));
      if (--it->second == 0) count_.erase(it);
    }
    return r;
  }

  std::string spec_;
  std::int64_t group_;
  bool frozen_;
  AccessIndex index_;
  std::map<std::int64_t, std::size_t> count_;  // requests per non-empty group
  std::optional<std::int64_t> current_;
  int dir_ = +1;
  std::uint64_t entry_seq_ = 0;  // admit=frozen: requests inserted before entering
};

}  // namespace

AlgorithmInfo gstf_algorithm() {
  return {
      .name = "gstf",
      .description = "grouped STF: shortest access time within a group of G cylinders, groups "
                     "visited in scan order (reconstruction)",
      .source = "Huang & Chiueh (keywords only; reconstructed)",
      .needs_rotation = true,
      .params = {
          count_param("group", "cylinders", "group size G: consecutive cylinders served together", 100, 1,
                    1e9),
          choice_param("admit", "all: arrivals join the current group while it is served; frozen: only the "
                    "requests present when the group was entered", {"all", "frozen"}, "all"),
      },
      .factory = spec_factory<Gstf>(gstf_algorithm),
  };
}

}  // namespace disksched::rotational
