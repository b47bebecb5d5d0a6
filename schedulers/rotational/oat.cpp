#include "schedulers/rotational/oat.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "schedulers/rotational/ranking.hpp"

namespace disksched::rotational {

namespace {

HeadState serve(const DeviceModel& model, const HeadState& from, const Request& r) {
  return model.service(from, r.op, r.offset, r.length).end;
}

// Indices of the batch sorted by (arrival, id): the order ties are broken in.
std::vector<std::size_t> fcfs_indices(const std::vector<Request>& batch) {
  std::vector<std::size_t> idx(batch.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](std::size_t a, std::size_t b) { return older(batch[a], batch[b]); });
  return idx;
}

struct Search {
  const DeviceModel& model;
  const std::vector<Request>& batch;
  std::vector<std::size_t> rank_order;  // candidate order at every level: (arrival, id)
  Millis t0;
  std::vector<bool> used;
  std::vector<std::size_t> current;
  Schedule best;

  // True when `a` comes before `b` lexicographically by (arrival, id).
  bool lex_before(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) const {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return older(batch[a[i]], batch[b[i]]);
    return false;
  }

  void dfs(const HeadState& state) {
    const Millis elapsed = state.time_ms - t0;
    if (elapsed > best.length_ms) return;  // already longer than a complete schedule
    if (current.size() == batch.size()) {
      if (elapsed < best.length_ms || lex_before(current, best.order)) {
        best.length_ms = elapsed;
        best.order = current;
      }
      return;
    }
    for (std::size_t i : rank_order) {
      if (used[i]) continue;
      used[i] = true;
      current.push_back(i);
      dfs(serve(model, state, batch[i]));
      current.pop_back();
      used[i] = false;
    }
  }
};

}  // namespace

Millis schedule_length(const DeviceModel& model, const HeadState& head,
                       const std::vector<Request>& batch, const std::vector<std::size_t>& order) {
  HeadState state = head;
  for (std::size_t i : order) state = serve(model, state, batch.at(i));
  return state.time_ms - head.time_ms;
}

Schedule greedy_order(const DeviceModel& model, const HeadState& head,
                      const std::vector<Request>& batch) {
  Schedule s;
  std::vector<bool> used(batch.size(), false);
  HeadState state = head;
  for (std::size_t step = 0; step < batch.size(); ++step) {
    Rank best;
    std::size_t pick = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (used[i]) continue;
      const Rank r = Rank::of(model.positioning_ms(state, batch[i].loc), batch[i]);
      if (before(r, best)) {
        best = r;
        pick = i;
      }
    }
    used[pick] = true;
    s.order.push_back(pick);
    state = serve(model, state, batch[pick]);
  }
  s.length_ms = state.time_ms - head.time_ms;
  return s;
}

Schedule optimal_order(const DeviceModel& model, const HeadState& head,
                       const std::vector<Request>& batch) {
  if (batch.size() > kMaxOatBatch)
    throw std::invalid_argument("optimal_order: a batch of " + std::to_string(batch.size()) +
                                " requests is more than the " + std::to_string(kMaxOatBatch) +
                                " OAT searches exhaustively");
  Search s{model, batch, fcfs_indices(batch), head.time_ms,
           std::vector<bool>(batch.size(), false), {}, greedy_order(model, head, batch)};
  s.current.reserve(batch.size());
  s.dfs(head);
  return s.best;
}

}  // namespace disksched::rotational
