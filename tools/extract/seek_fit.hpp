// Fits measured seek times to the profile's seek-curve forms (reference notes §2.5,
// §4.3.6): the two-piece a + b*sqrt(d) / c + e*d with the breakpoint chosen by least
// clipped squared error, the three-piece variant with a separate single-cylinder
// time, and the measured table itself. Robust: points more than 4 MAD off the fit are
// dropped before the final fit (even DIXtrac's published tables hold gross outliers).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "predictor/seek_curve.hpp"

namespace disksched::extract {

struct SeekPoint {
  std::int64_t distance = 0;  // cylinders, > 0
  double ms = 0.0;
};

struct SeekFit {
  SeekCurveSpec spec;                 // the chosen form
  std::string form;                   // its name
  double rms_ms = 0.0;                // of the chosen form against the kept points
  double two_piece_rms_ms = 0.0;
  double three_piece_rms_ms = 0.0;
  std::vector<SeekPoint> table;       // median per distance, sorted
  std::vector<SeekPoint> rejected;    // points dropped as outliers
};

enum class SeekForm { Auto, TwoPiece, ThreePiece, Table };

// `points` may hold several samples per distance. Needs at least 4 distinct distances
// for a fitted form (else the table is used).
SeekFit fit_seek_curve(const std::vector<SeekPoint>& points, SeekForm form = SeekForm::Auto);

// Root-mean-square difference of two curves over distances 1..max_distance.
double seek_rms_difference(const SeekCurveSpec& a, const SeekCurveSpec& b,
                           std::int64_t max_distance);

}  // namespace disksched::extract
