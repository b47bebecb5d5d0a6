#include "bench/experiments/repro/decision_cost.hpp"

#include <time.h>

#include <algorithm>
#include <random>

#include "schedulers/registry.hpp"

namespace disksched {

namespace {

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

}  // namespace

Millis DecisionCost::at(std::size_t n) const {
  if (points.empty()) return 0.0;
  if (n <= points.front().first) return points.front().second;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (n <= points[i].first) {
      const auto [n0, c0] = points[i - 1];
      const auto [n1, c1] = points[i];
      return c0 + (c1 - c0) * static_cast<double>(n - n0) / static_cast<double>(n1 - n0);
    }
  return points.back().second;
}

DecisionCost measure_decision_cost(const DeviceModel& model, const std::string& spec,
                                   const std::vector<std::size_t>& lengths, double budget_ms) {
  DecisionCost out;
  out.spec = spec;
  std::mt19937_64 rng(42);
  const std::uint32_t sb = model.sector_bytes();
  const std::uint64_t blocks = model.capacity_bytes() / sb;
  auto fresh = [&, id = std::uint64_t{0}, now = 0.0]() mutable {
    Request r;
    r.offset = (rng() % (blocks - 8)) * sb;
    r.length = 8 * sb;
    r.loc = model.locate(r.offset / sb, 8, r.op);
    r.id = id++;
    now += 0.01;
    r.arrival_ms = now;
    return r;
  };
  for (const std::size_t n : lengths) {
    auto s = make_scheduler(spec, model);
    for (std::size_t i = 0; i < n; ++i) s->add(fresh());
    HeadState head = model.initial_state();
    std::size_t ops = 0;
    const double start = thread_cpu_ms();
    double elapsed = 0;
    while (elapsed < budget_ms) {
      for (int k = 0; k < 64; ++k) {
        auto r = s->pick(head.time_ms, head);
        head.cylinder = r->loc.cylinder;
        head.head = r->loc.head;
        head.time_ms += 7.919;
        s->add(fresh());
      }
      ops += 64;
      elapsed = thread_cpu_ms() - start;
    }
    out.points.emplace_back(n, elapsed / static_cast<double>(ops));
  }
  return out;
}

}  // namespace disksched
