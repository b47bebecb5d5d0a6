// The "area" heuristic of SATFGDF and its quadratic approximation (JW sec. 5.1,
// Fig. 8-9).
//
// JW: with a forced request z due to start at a deadline, prefer the next request r
// after which the largest "area" of the disk can still be visited on the way to z.
// Our derivation of that area, in JW's sector units (tau = one sector, S sectors per
// track), for one surface with the disk's edges ignored as JW do:
//   let r end at cylinder 0 with R sectors of time left before z (dc cylinders away)
//   must start, and let a(x) = (overhead + T_S(|x|)) / tau be the time to reach
//   cylinder x ready to transfer. A point p = (x, s) can be visited on the way iff
//   the head can be over p at some time u with a(x) <= u and u + a(x - dc) <= R,
//   i.e. u in [a(x), R - a(x - dc)]. Over that interval the platter passes
//   min(S, R - a(x) - a(x - dc)) distinct sectors of cylinder x (one rotation shows
//   each sector once), so
//       area(dc, R) = sum over x of min(S, max(0, R - a(x) - a(x - dc))).
// It is symmetric in dc and largest at dc = 0: plotted against the starting cylinder
// it is a family of parabola-like curves, one per R (JW Fig. 9). Like JW we replace it
// by a quadratic with no linear term, q0(R) + q2(R) * dc^2, fitted by least squares
// to area(dc, R) over the dc where area > 0, and store the coefficients per whole
// sector of R (computed lazily, cached).
// On the HP 97560 the fit is rough where both legs are long seeks: the seek is then
// linear in distance, so the cylinders between r and z all cost about the same and
// the exact area is flat, even slightly rising, in dc there. The quadratic keeps the
// trend that matters to the heuristic (largest near z, falling away from it).
#pragma once

#include <cstdint>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched::rotational {

class AreaHeuristic {
 public:
  struct Quadratic {
    double q0 = 0.0;  // area at dc = 0, fitted
    double q2 = 0.0;  // curvature (<= 0 in practice)
  };

  explicit AreaHeuristic(const DeviceModel& model);

  // The exact area (sectors) for a cylinder distance dc and R sectors of time left.
  double area(std::int64_t dc, double remaining_sectors) const;
  // The fitted quadratic for floor(R) sectors left.
  const Quadratic& fit(std::int64_t remaining_sectors) const;
  // H = q0 + q2 dc^2 for `remaining_ms` left (negative time: no area, H = 0).
  double value(std::int64_t dc, Millis remaining_ms) const;

  Millis sector_ms() const { return tau_; }
  double sectors_per_track() const { return S_; }

 private:
  std::int64_t reach(double remaining_sectors) const;  // largest d with a(d) < R, or -1

  Millis tau_;
  double S_;
  std::int64_t C_;
  std::vector<double> a_;      // a(d) in sectors, d in [0, C)
  std::vector<double> a_lb_;   // min over d' >= d of a(d'): non-decreasing
  mutable std::vector<Quadratic> fits_;
  mutable std::vector<bool> fitted_;
};

}  // namespace disksched::rotational
