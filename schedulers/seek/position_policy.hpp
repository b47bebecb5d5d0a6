// What "position" means to a seek-ordered scheduler: the cylinder (MEMS: the x column)
// or the logical block number. A scheduler templated on one of these sorts requests by
// `of(r)` and measures from `head(h)`.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"
#include "schedulers/registry.hpp"
#include "schedulers/seek/edge.hpp"
#include "schedulers/seek/lbn_head.hpp"

namespace disksched::seek {

struct ByCylinder {
  using Pos = std::int64_t;
  static constexpr std::string_view name = "cyl";
  explicit ByCylinder(const DeviceModel&) {}
  static Pos of(const Request& r) { return r.loc.cylinder; }
  Pos head(const HeadState& h) const { return h.cylinder; }
  void dispatched(const Request&) {}
  static Pos low_edge(const Edges& e) { return e.low_cylinder(); }
  static Pos high_edge(const Edges& e) { return e.high_cylinder(); }
};

struct ByLbn {
  using Pos = std::uint64_t;
  static constexpr std::string_view name = "lbn";
  explicit ByLbn(const DeviceModel& m) : lbn(m) {}
  static Pos of(const Request& r) { return r.loc.lba; }
  Pos head(const HeadState& h) const { return lbn.at(h); }
  void dispatched(const Request& r) { lbn.dispatched(r); }
  static Pos low_edge(const Edges& e) { return e.low_lba(); }
  static Pos high_edge(const Edges& e) { return e.high_lba(); }
  LbnHead lbn;
};

// The factory of a scheduler templated on its position: S<ByLbn> for `by=lbn`, else
// S<ByCylinder> (the `by` parameter of by_param()), built from the model and its
// canonical spec (`info` is the algorithm's declaration).
template <template <typename> class S>
SchedulerFactory by_position_factory(AlgorithmInfo (*info)()) {
  return [info](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
    std::string spec = format_spec(info(), p);
    if (p.choice("by") == "lbn") return std::make_unique<S<ByLbn>>(m, std::move(spec));
    return std::make_unique<S<ByCylinder>>(m, std::move(spec));
  };
}

}  // namespace disksched::seek
