// The tolerances `extract check` holds a profile to, by name: `hp97560` (issue 7's, for a
// drive walked cylinder by cylinder) and `today` (a drive of today: zones sampled across
// the LBA space, skews in whole physical sectors, the seek curve sampled by distance, and
// the drive's cache, write cache and queue). tolerances_help() lists both, per parameter.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "predictor/profile.hpp"
#include "tools/extract/compare.hpp"

namespace disksched::extract {

// The set of that name ("hp97560", "today"), or nothing.
std::optional<Tolerances> tolerances_named(std::string_view name);
// "auto": `today` for a truth with a write cache by size (a drive of today as shipped),
// else `hp97560`.
std::string auto_tolerances(const DiskProfile& truth);
// Every set, a line a parameter (for `extract check --help`).
std::string tolerances_help();

}  // namespace disksched::extract
