// Declaring parameters once, beside each algorithm, by field name (so declarations
// stay valid as ParamSpec grows; the helpers are common/spec.hpp's). An instance's canonical spec comes from the
// registry's format_spec(info, params), so spec() never drifts from them.
#pragma once

#include "schedulers/registry.hpp"

namespace disksched::rotational {

// The ground floor's declarations (common/spec.hpp), under the names used here.
using disksched::choice_param;
using disksched::count_param;
using disksched::number_param;

}  // namespace disksched::rotational
