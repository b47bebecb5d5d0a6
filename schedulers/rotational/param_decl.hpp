// Declaring parameters once, beside each algorithm, by field name (so declarations
// stay valid as ParamSpec grows; the helpers are common/spec.hpp's), and building from
// them: an instance's canonical spec comes from the registry's format_spec(info, params)
// (spec_factory), so spec() never drifts from them.
#pragma once

#include <memory>

#include "schedulers/registry.hpp"

namespace disksched::rotational {

// The ground floor's declarations (common/spec.hpp), under the names used here.
using disksched::choice_param;
using disksched::count_param;
using disksched::number_param;

// The factory of a scheduler built as S(model, its canonical spec, params); `info` is the
// algorithm's declaration, whose parameters the canonical spec writes out.
template <class S>
SchedulerFactory spec_factory(AlgorithmInfo (*info)()) {
  return [info](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
    return std::make_unique<S>(m, format_spec(info(), p), p);
  };
}

}  // namespace disksched::rotational
