// Seek time as a function of seek distance in cylinders.
//
// Three forms, as a geometry profile names them:
//  - two-piece (JW sec. 3): a + b*sqrt(s) for 0 < s <= boundary, c + d*s beyond;
//  - three-piece (DiskSim style): a measured single-cylinder time for s = 1, then the
//    two-piece form for short and long seeks;
//  - table: measured (distance, ms) points, linearly interpolated; beyond the last
//    point flat, or along the last segment's line (DiskSim's extracted seek files);
//  - curve (DiskSim, Lee's three-point formula): from the single-cylinder, average and
//    full-stroke times, s + b*(d-1) + a*sqrt(d-1) over the device's C cylinders with
//    a = (-10s + 15avg - 5full) / (3 sqrt(C)), b = (7s - 15avg + 8full) / (3C);
//  - first ten, then two-piece (DiskSim's hplplus10): measured times for distances 1-10,
//    the two-piece form beyond.
// Seek(0) is always 0. The curve is tabulated for every distance up to the device's
// cylinder count so that evaluation is one array load.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched {

struct SeekCurveSpec {
  enum class Form { TwoPiece, ThreePiece, Table, Curve, FirstTenTwoPiece };
  Form form = Form::TwoPiece;
  double short_a = 0, short_b = 0;  // a + b*sqrt(s) for s <= boundary
  std::int64_t boundary = 0;
  double long_a = 0, long_b = 0;    // a + b*s for s > boundary
  double single_cylinder_ms = 0;    // three-piece only
  std::vector<std::pair<std::int64_t, double>> points;  // table only, sorted, distance > 0
  bool extrapolate = false;         // table: beyond the last point along the last segment
  double average_ms = 0, full_stroke_ms = 0;  // curve (with single_cylinder_ms)
  std::vector<double> first_ten;    // first ten: distances 1..10
};

const char* seek_form_name(SeekCurveSpec::Form f);

class SeekCurve {
 public:
  SeekCurve() = default;
  SeekCurve(const SeekCurveSpec& spec, std::int64_t cylinders);

  // Seek time for a distance of |distance| cylinders.
  Millis operator()(std::int64_t distance) const {
    if (distance < 0) distance = -distance;
    return distance < static_cast<std::int64_t>(table_.size()) ? table_[distance]
                                                               : evaluate(distance);
  }
  // The closed form, without the table.
  Millis evaluate(std::int64_t distance) const;
  const SeekCurveSpec& spec() const { return spec_; }

 private:
  SeekCurveSpec spec_;
  std::int64_t cylinders_ = 1;
  std::vector<Millis> table_;
};

}  // namespace disksched
