// The demerit figure (Ruemmler & Wilkes 1994; DiskSim 4.0 manual sec. 6): how far apart
// two access-time distributions are, as the root-mean-square horizontal distance between
// their cumulative distribution curves.
//
// Each distribution's inverse CDF Q(p), p in [0, 1], interpolates linearly between its
// order statistics (Hyndman & Fan type 7, as percentile_sorted: Q(k / (n - 1)) is the
// k-th smallest sample). Then
//   demerit      = sqrt( integral over [0, 1] of (Q_a(p) - Q_b(p))^2 dp ), exactly:
//                  Q_a - Q_b is linear between the union of both curves' breakpoints,
//                  so each piece integrates in closed form;
//   demerit_grid = sqrt( mean over p = 0.0001, 0.0002, ..., 1 of (Q_a(p) - Q_b(p))^2 ),
//                  the reference's sampled form (DiskSim's, without its histogram).
// Both are in the samples' unit; they differ by O(1 / 10000) of the range.
#pragma once

#include <vector>

namespace disksched {

// Both throw std::invalid_argument when either sample set is empty or holds a NaN.
double demerit(std::vector<double> a, std::vector<double> b);
double demerit_grid(std::vector<double> a, std::vector<double> b, int steps = 10000);

}  // namespace disksched
