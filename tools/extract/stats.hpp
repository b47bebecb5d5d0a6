// Robust statistics for noisy timing probes: medians, MAD rejection, circular angles.
#pragma once

#include <cstddef>
#include <vector>

namespace disksched::extract {

double median(std::vector<double> v);            // of a non-empty sample
double mad(const std::vector<double>& v);        // median absolute deviation, unscaled
// 1.4826 * MAD: a standard deviation estimate that ignores outliers.
double robust_sigma(const std::vector<double>& v);
// The sample standard deviation (n - 1), outliers and all; 0 for fewer than two.
double sample_sigma(const std::vector<double>& v);

// The median of the largest cluster of values that fits in a window `width` wide (ties:
// the lowest cluster); the median of all when they fit in one. Of a non-empty sample.
double densest(std::vector<double> v, double width);

// x wrapped into [-0.5, 0.5) rotations.
double wrap_half(double x);
// x wrapped into [0, 1).
double wrap_unit(double x);
// The phase halfway between a and b (rotations) the short way round, in [0, 1).
double mid_phase(double a, double b);
// The median of angles (rotations), taken around their circular mean so that values
// near 0 and near 1 average correctly. Result in [0, 1).
double circular_median(const std::vector<double>& angles);
// The circular median of skews (sectors) on a track of `spt` sectors, in (-0.5, spt - 0.5].
double circular_median_sectors(const std::vector<double>& sectors, double spt);
// The median of the largest cluster of angles (rotations) that fits in a window `width`
// wide; ties go to the earliest cluster. Completions seen late (a preempted host, a server
// that woke late) scatter after the true phase and seldom cluster, so this rejects them
// even when they are the majority; when every angle fits in one window it is the median.
double circular_mode(const std::vector<double>& angles, double width);
// The earliest angle of that cluster, or of the angles up to `width` before it: where
// noise only ever delays (a completion is never seen before its sector has passed), the
// earliest of a few reads is nearer the truth than their middle. Result in [0, 1).
double circular_earliest(const std::vector<double>& angles, double width);
// Mean resultant length of angles (rotations): 1 when they agree, 0 when spread evenly.
double circular_concentration(const std::vector<double>& angles);

struct LineFit {
  double intercept = 0.0;
  double slope = 0.0;
  double rms = 0.0;          // of the residuals of the points kept
  std::size_t kept = 0;      // points used in the final fit
  std::size_t rejected = 0;  // points rejected as outliers
};

// Least squares y = a + b x, repeated `rounds` times rejecting points whose residual
// exceeds `k` * 1.4826 * MAD (and a small absolute floor `floor`). Needs >= 2 points.
LineFit robust_line(const std::vector<double>& x, const std::vector<double>& y,
                    double k = 3.0, int rounds = 3, double floor = 0.0);

// Ordinary least squares with weights; used by the seek fitter.
LineFit least_squares(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace disksched::extract
