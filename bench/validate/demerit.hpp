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
//   demerit_histogram = the figure DiskSim 4.0's own tools print (its `rms` on the
//                  access-time distributions it writes): each sample, in ms, truncated to
//                  whole microseconds and counted into buckets whose edges start at 0 us and
//                  step 1 us, each step 1 % longer than the last (e_{k+1} = e_k + 1 +
//                  floor(e_k / 100); 1750 edges, the last bucket open: DiskSim's statdefs,
//                  "Trace access time" and "Physical access time"). The CDF at each edge (the
//                  fraction below it, rounded to 6 decimals as DiskSim prints it) is joined
//                  linearly, inverted at p = 0.0001, 0.0002, ... <= 1 and averaged as the
//                  grid form is. Buckets are about 1 % wide (0.1 ms at 10 ms), so it differs
//                  from the exact figure by a few percent of it; it is the one to set beside
//                  the figures DiskSim publishes.
// All are in the samples' unit; the first two differ by O(1 / 10000) of the range.
#pragma once

#include <vector>

namespace disksched {

// Each throws std::invalid_argument when either sample set is empty or holds a NaN.
double demerit(std::vector<double> a, std::vector<double> b);
double demerit_grid(std::vector<double> a, std::vector<double> b, int steps = 10000);
// Samples in ms (the buckets are microseconds).
double demerit_histogram(const std::vector<double>& a_ms, const std::vector<double>& b_ms);

}  // namespace disksched
