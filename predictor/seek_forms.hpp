// The two closed seek-curve forms built from the coefficients the literature quotes, so
// that a profile or a test states its curve in one line: a + b*sqrt(s) up to `boundary`
// cylinders, a + b*s beyond; the three-piece form also takes the single-cylinder time.
#pragma once

#include <cstdint>

#include "predictor/seek_curve.hpp"

namespace disksched {

inline SeekCurveSpec two_piece_seek(double short_a, double short_b, std::int64_t boundary,
                                    double long_a, double long_b) {
  return {.form = SeekCurveSpec::Form::TwoPiece, .short_a = short_a, .short_b = short_b,
          .boundary = boundary, .long_a = long_a, .long_b = long_b, .points = {}, .first_ten = {}};
}

inline SeekCurveSpec three_piece_seek(double single_cylinder_ms, double short_a, double short_b,
                                      std::int64_t boundary, double long_a, double long_b) {
  SeekCurveSpec s = two_piece_seek(short_a, short_b, boundary, long_a, long_b);
  s.form = SeekCurveSpec::Form::ThreePiece;
  s.single_cylinder_ms = single_cylinder_ms;
  return s;
}

}  // namespace disksched
