// The robust statistics and the seek-curve fitter, on curves with known answers.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "predictor/seek_curve.hpp"
#include "predictor/seek_forms.hpp"
#include "tools/extract/seek_fit.hpp"
#include "tools/extract/stats.hpp"

using namespace disksched;
using namespace disksched::extract;

namespace {

std::vector<std::int64_t> distances(std::int64_t maxd) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i <= 16; ++i) d.push_back(i);
  for (double x = 20; x < maxd; x *= 1.25) d.push_back(std::llround(x));
  d.push_back(maxd);
  return d;
}

SeekCurveSpec jw() {
  return two_piece_seek(3.24, 0.4, 383, 8.2, 0.0075);
}

// The exact curve at the probed distances up to `maxd`, and on both sides of the jump
// at its boundary, as the extractor's bisection adds them.
std::vector<SeekPoint> exact_points(const SeekCurveSpec& spec, std::int64_t maxd) {
  const SeekCurve truth(spec, maxd + 1);
  std::vector<SeekPoint> pts;
  for (auto d : distances(maxd)) pts.push_back({d, truth.evaluate(d)});
  pts.push_back({spec.boundary, truth.evaluate(spec.boundary)});
  pts.push_back({spec.boundary + 1, truth.evaluate(spec.boundary + 1)});
  return pts;
}

}  // namespace

TEST_CASE("median, MAD and circular statistics", "[extract][stats]") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 2, 3}) == 2.5);
  CHECK(mad({1, 2, 3, 4, 100}) == 1);
  CHECK(wrap_half(0.75) == Approx(-0.25));
  CHECK(wrap_unit(-0.25) == Approx(0.75));
  // Halfway the short way round: across 0, not through one half.
  CHECK(mid_phase(0.2, 0.4) == Approx(0.3));
  CHECK(wrap_half(mid_phase(0.9, 0.1)) == Approx(0.0).margin(1e-12));
  CHECK(mid_phase(0.1, 0.9) == Approx(0.0).margin(1e-12));
  // Angles either side of 0 must not average to one half.
  CHECK(wrap_half(circular_median({0.98, 0.99, 0.01, 0.02, 0.0}) - 0.0) == Approx(0.0).margin(1e-12));
  CHECK(circular_concentration({0.1, 0.1, 0.1}) == Approx(1.0));
  CHECK(circular_concentration({0.0, 0.25, 0.5, 0.75}) == Approx(0.0).margin(1e-12));
  CHECK_THROWS(median({}));
  // The densest cluster, not the middle of two: gaps of one and two revolutions whose
  // median (20.0 here) lies in neither.
  CHECK(densest({11.10, 11.12, 11.11, 20.0, 22.21, 22.22, 22.20, 22.23}, 0.1) == Approx(22.215));
  CHECK(densest({11.10, 11.12, 11.11, 22.20, 22.23}, 0.1) == Approx(11.11));
  CHECK(densest({1.0, 2.0}, 5.0) == Approx(1.5));  // all in one window: the median
  CHECK(densest({3.0, 1.0}, 0.1) == 1.0);           // a tie: the lowest
  CHECK_THROWS(densest({}, 0.1));
}

TEST_CASE("robust line rejects gross outliers", "[extract][stats]") {
  std::vector<double> x, y;
  for (int i = 0; i < 50; ++i) {
    x.push_back(i);
    y.push_back(2.0 + 0.5 * i + ((i % 3) - 1) * 0.01);
  }
  y[10] += 30;
  y[40] -= 20;
  const LineFit f = robust_line(x, y);
  CHECK(f.slope == Approx(0.5).margin(1e-3));
  CHECK(f.intercept == Approx(2.0).margin(0.02));
  CHECK(f.rejected == 2);
  // Plain least squares is pulled away by them.
  CHECK(std::fabs(least_squares(x, y).intercept - 2.0) > 0.1);
}

TEST_CASE("an exact JW two-piece curve is recovered exactly", "[extract][seek]") {
  const SeekFit f = fit_seek_curve(exact_points(jw(), 1963));
  CHECK(f.form == "two-piece");
  CHECK(f.spec.boundary == 383);
  CHECK(f.spec.short_a == Approx(3.24).margin(1e-6));
  CHECK(f.spec.short_b == Approx(0.4).margin(1e-6));
  CHECK(f.spec.long_a == Approx(8.2).margin(1e-6));
  CHECK(f.spec.long_b == Approx(0.0075).margin(1e-8));
  CHECK(seek_rms_difference(f.spec, jw(), 1963) < 1e-6);
  CHECK(f.rejected.empty());
}

TEST_CASE("a settle-dominated single-cylinder seek selects the three-piece form", "[extract][seek]") {
  const SeekCurveSpec t = three_piece_seek(0.8, 1.6, 0.22, 400, 4.9, 0.0042);
  const SeekFit f = fit_seek_curve(exact_points(t, 1099));
  CHECK(f.form == "three-piece");
  CHECK(f.spec.single_cylinder_ms == Approx(0.8));
  CHECK(f.three_piece_rms_ms < 1e-6);
  CHECK(f.two_piece_rms_ms > 0.05);
  CHECK(seek_rms_difference(f.spec, t, 1099) < 1e-6);
}

TEST_CASE("noisy points with outliers: MAD rejection keeps the fit within tolerance", "[extract][seek]") {
  SeekCurve truth(jw(), 1964);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<SeekPoint> pts;
  const auto ds = distances(1963);
  for (auto d : ds)
    for (int k = 0; k < 2; ++k) pts.push_back({d, truth.evaluate(d) + noise(rng)});
  // Two gross outliers, like DIXtrac's atlas10k table (+2.75 ms) and ibm18es (too low).
  for (auto& p : pts) {
    if (p.distance == ds[24]) p.ms += 2.75;
    if (p.distance == ds[34]) p.ms -= 4.0;
  }
  const SeekFit f = fit_seek_curve(pts);
  CHECK(f.rejected.size() == 2);
  CHECK(seek_rms_difference(f.spec, jw(), 1963) < 0.1);
  // Forcing the table keeps every median, outliers and all.
  const SeekFit t = fit_seek_curve(pts, SeekForm::Table);
  CHECK(t.form == "table");
  CHECK(t.spec.points.size() == t.table.size());
}

TEST_CASE("too few distances give the table", "[extract][seek]") {
  const SeekFit f = fit_seek_curve({{1, 2.0}, {10, 3.0}, {100, 6.0}});
  CHECK(f.form == "table");
  CHECK(f.spec.points.size() == 3);
}
