// The HP 97560 seek curve (JW sec. 3) and the other curve forms.
#include <catch2/catch.hpp>

#include "predictor/device_model.hpp"
#include "predictor/seek_curve.hpp"
#include "predictor/seek_forms.hpp"

using namespace disksched;

TEST_CASE("HP 97560 seek times match JW sec. 3 at the published distances", "[seek]") {
  auto m = load_model("hp97560");
  // Values computed from JW's fitted curve (models-and-claims.md).
  CHECK(m->seek_ms(1) == Approx(3.640).margin(5e-4));
  CHECK(m->seek_ms(383) == Approx(11.068).margin(5e-4));
  CHECK(m->seek_ms(384) == Approx(11.080).margin(5e-4));
  CHECK(m->seek_ms(1963) == Approx(22.923).margin(5e-4));
  CHECK(m->seek_ms(0) == 0.0);
  CHECK(m->seek_ms(-383) == m->seek_ms(383));
}

TEST_CASE("two-piece curve is the closed form at every distance", "[seek]") {
  auto m = load_model("hp97560");
  for (int s = 1; s < 1964; ++s) {
    double expect = s <= 383 ? 3.24 + 0.4 * std::sqrt(s) : 8.20 + 0.0075 * s;
    REQUIRE(m->seek_ms(s) == Approx(expect).epsilon(1e-12));
  }
}

TEST_CASE("three-piece curve uses the single-cylinder time at distance 1", "[seek]") {
  const SeekCurveSpec s = three_piece_seek(0.9, 1.0, 0.5, 100, 4.0, 0.01);
  SeekCurve c(s, 1000);
  CHECK(c(1) == 0.9);
  CHECK(c(4) == Approx(2.0));
  CHECK(c(200) == Approx(6.0));
  CHECK(c(5000) == Approx(54.0));  // beyond the table: closed form
}

TEST_CASE("table curve interpolates linearly and holds its ends", "[seek]") {
  SeekCurveSpec s;
  s.form = SeekCurveSpec::Form::Table;
  s.points = {{2, 2.0}, {10, 4.0}, {100, 13.0}};
  SeekCurve c(s, 200);
  CHECK(c(0) == 0.0);
  CHECK(c(1) == 2.0);
  CHECK(c(2) == 2.0);
  CHECK(c(6) == Approx(3.0));
  CHECK(c(55) == Approx(8.5));
  CHECK(c(150) == 13.0);
}

TEST_CASE("a table from a DiskSim extracted seek file extends its last segment", "[seek]") {
  SeekCurveSpec s;
  s.form = SeekCurveSpec::Form::Table;
  s.points = {{1, 1.0}, {10, 4.0}, {100, 13.0}};
  s.extrapolate = true;
  SeekCurve c(s, 300);
  CHECK(c(55) == Approx(8.5));
  CHECK(c(100) == 13.0);
  CHECK(c(200) == Approx(23.0));  // 13 + 100 x 0.1
  s.points = {{1, 5.0}, {2, 1.0}};  // falling: the line stops at zero
  CHECK(SeekCurve(s, 300)(50) == 0.0);
}

TEST_CASE("curve is the three-point formula over the device's cylinders", "[seek]") {
  SeekCurveSpec s;
  s.form = SeekCurveSpec::Form::Curve;
  s.single_cylinder_ms = 1.0;
  s.average_ms = 8.0;
  s.full_stroke_ms = 16.0;
  const std::int64_t C = 10000;
  SeekCurve c(s, C);
  CHECK(c(0) == 0.0);
  CHECK(c(1) == 1.0);
  // s + b(d-1) + a sqrt(d-1): at d - 1 = C the full stroke exactly.
  const double a = (-10 * 1.0 + 15 * 8.0 - 5 * 16.0) / (3 * std::sqrt(10000.0));
  const double b = (7 * 1.0 - 15 * 8.0 + 8 * 16.0) / (3 * 10000.0);
  CHECK(c(401) == Approx(1.0 + b * 400 + a * 20));
  CHECK(c.evaluate(C + 1) == Approx(16.0));
}

TEST_CASE("first ten, then two-piece (DiskSim hplplus10)", "[seek]") {
  SeekCurveSpec s;
  s.form = SeekCurveSpec::Form::FirstTenTwoPiece;
  s.first_ten = {2.89, 3.68, 3.81, 3.98, 4.27, 4.65, 4.52, 4.65, 4.82, 4.99};
  s.short_a = 3.81, s.short_b = 0.33, s.boundary = 299, s.long_a = 7.75, s.long_b = 0.0059;
  SeekCurve c(s, 2051);
  CHECK(c(1) == 2.89);
  CHECK(c(7) == 4.52);
  CHECK(c(10) == 4.99);
  CHECK(c(11) == Approx(3.81 + 0.33 * std::sqrt(11.0)));
  CHECK(c(299) == Approx(3.81 + 0.33 * std::sqrt(299.0)));
  CHECK(c(300) == Approx(7.75 + 0.0059 * 300));
}
