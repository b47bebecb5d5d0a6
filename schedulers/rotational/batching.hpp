// What JW's batch algorithms share (sec. 5.2): they "can be used continuously, or in a
// two-mode fashion: invoked only when starvation has been observed". mode=continuous
// always works in batches; mode=on-starvation runs SATF until the oldest request has
// waited longer than `age` ms, then takes a batch, and returns to SATF when it is done.
#pragma once

#include <vector>

#include "schedulers/registry.hpp"
#include "schedulers/rotational/access_index.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {

struct BatchTrigger {
  bool continuous = true;
  Millis age_ms = 500.0;

  // Whether to take a new batch of the requests waiting in `pool` now.
  bool fires(Millis now, const AccessIndex& pool) const {
    return continuous || now - pool.oldest_arrival() > age_ms;
  }
  static BatchTrigger from(const Params& p) {
    return BatchTrigger{p.choice("mode") == "continuous", p.number("age")};
  }
};

inline std::vector<ParamSpec> batch_params() {
  return {
      choice_param("mode",
                   "continuous: always serve in batches; on-starvation: SATF until the oldest "
                   "has waited longer than age, then one batch",
                   {"continuous", "on-starvation"}, "continuous"),
      number_param("age", "ms", "mode=on-starvation: the wait that triggers a batch", 500, 0,
                   3.6e6),
  };
}

}  // namespace disksched::rotational
