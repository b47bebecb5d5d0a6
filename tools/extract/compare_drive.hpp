// `extract check` beyond the platter: the profile's cache block and the drive queue its
// `source.drive` record found, against the truth's (the emulator's --drive-queue), by
// the tolerances of tolerances.hpp.
#pragma once

#include <string>
#include <vector>

#include "predictor/profile.hpp"
#include "tools/extract/compare.hpp"

namespace disksched::extract {

// Appends "quantity: ours vs truth (tolerance) ok|FAIL" lines; whether all are met.
// `truth_queue`: the depth the emulator gave the drive (0: not known, not checked).
bool compare_drive(const DiskProfile& got, const DiskProfile& truth, unsigned truth_queue, const Tolerances& tol,
                   std::vector<std::string>& lines);

}  // namespace disksched::extract
