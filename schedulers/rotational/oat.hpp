// OAT: Optimal Access Time scheduling of a small batch (JW sec. 4.1), and the greedy
// order it is compared with. Library functions, used by the `oat` scheduler and by
// the simulator's reproduction of JW's greedy-versus-optimal numbers.
//
// A schedule serves every request of the batch, one after another, each dispatched
// when the previous completes; its length is the time from head.time_ms until the
// last one completes (model.service chained through the end states). OAT minimises
// that length over all orders ("considers all possible combinations of the requests",
// sec. 4.1) by depth-first branch and bound: a partial order is abandoned as soon as
// it already takes longer than the best complete one (service times are never
// negative), starting from the greedy schedule as the first bound. Among orders of
// equal length the one that is first lexicographically, requests compared by
// (arrival, id), is returned, so the result is reproducible.
#pragma once

#include <cstddef>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched::rotational {

// The largest batch optimal_order() accepts (8! = 40320 orders at worst).
inline constexpr std::size_t kMaxOatBatch = 8;

struct Schedule {
  std::vector<std::size_t> order;  // indices into the batch, in service order
  Millis length_ms = 0.0;          // from head.time_ms to the last completion
};

// Length of serving batch[order[0]], batch[order[1]], ... from `head`.
Millis schedule_length(const DeviceModel& model, const HeadState& head,
                       const std::vector<Request>& batch, const std::vector<std::size_t>& order);

// Greedy (JW's SATF applied repeatedly): from each state the request with the
// shortest access time goes next; ties by arrival, then id.
Schedule greedy_order(const DeviceModel& model, const HeadState& head,
                      const std::vector<Request>& batch);

// The shortest schedule of the batch (at most kMaxOatBatch requests; throws
// std::invalid_argument for more).
Schedule optimal_order(const DeviceModel& model, const HeadState& head,
                       const std::vector<Request>& batch);

}  // namespace disksched::rotational
