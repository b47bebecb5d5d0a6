// Common body of the schedulers that keep their requests in an AccessIndex: add,
// remove, size and drain; each algorithm supplies pick() and spec().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedulers/rotational/access_index.hpp"
#include "schedulers/rotational/param_decl.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched::rotational {

class IndexedScheduler : public Scheduler {
 public:
  IndexedScheduler(const DeviceModel& model, std::string spec, bool track_age)
      : model_(model), spec_(std::move(spec)), index_(model, track_age) {}

  std::string spec() const override { return spec_; }
  void add(const Request& r) override { index_.insert(r); }
  bool remove(std::uint64_t id) override { return index_.erase(id).has_value(); }
  bool relocate(const Request& r) override { return index_.relocate(r); }
  std::size_t size() const override { return index_.size(); }
  std::vector<Request> drain() override { return index_.drain(); }

  const AccessIndex& index() const { return index_; }

 protected:
  // Removes the chosen request from the index and returns it.
  std::optional<Request> take(const Request* chosen) {
    if (chosen == nullptr) return std::nullopt;
    return index_.take(chosen);
  }

  const DeviceModel& model_;
  std::string spec_;
  AccessIndex index_;
};

// "cells" (JW's cell-ordered search) or "scan" (exhaustive; the reference). A test
// oracle, so hidden from `sched list`.
inline ParamSpec search_param() {
  ParamSpec p = choice_param("search", "how to find the choice: cells = JW Fig. 4-5 cell-ordered "
                                       "search with early exit; scan = exhaustive (reference)", {"cells", "scan"}, "cells");
  p.hidden = true;
  return p;
}

}  // namespace disksched::rotational
