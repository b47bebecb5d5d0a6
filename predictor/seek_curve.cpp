#include "predictor/seek_curve.hpp"

#include <algorithm>
#include <cmath>

namespace disksched {

const char* seek_form_name(SeekCurveSpec::Form f) {
  switch (f) {
    case SeekCurveSpec::Form::TwoPiece: return "two-piece";
    case SeekCurveSpec::Form::ThreePiece: return "three-piece";
    case SeekCurveSpec::Form::Table: return "table";
    case SeekCurveSpec::Form::Curve: return "curve";
    case SeekCurveSpec::Form::FirstTenTwoPiece: return "first-ten";
  }
  return "?";
}

SeekCurve::SeekCurve(const SeekCurveSpec& spec, std::int64_t cylinders)
    : spec_(spec), cylinders_(std::max<std::int64_t>(cylinders, 1)) {
  table_.resize(static_cast<std::size_t>(std::max<std::int64_t>(cylinders, 1)));
  for (std::size_t s = 0; s < table_.size(); ++s) table_[s] = evaluate(static_cast<std::int64_t>(s));
}

Millis SeekCurve::evaluate(std::int64_t s) const {
  if (s < 0) s = -s;
  if (s == 0) return 0.0;
  switch (spec_.form) {
    case SeekCurveSpec::Form::Curve: {
      const double c = static_cast<double>(cylinders_);
      const double one = spec_.single_cylinder_ms, avg = spec_.average_ms, full = spec_.full_stroke_ms;
      const double a = (-10 * one + 15 * avg - 5 * full) / (3 * std::sqrt(c));
      const double b = (7 * one - 15 * avg + 8 * full) / (3 * c);
      const double d = static_cast<double>(s - 1);
      return one + b * d + a * std::sqrt(d);
    }
    case SeekCurveSpec::Form::FirstTenTwoPiece:
      if (s <= static_cast<std::int64_t>(spec_.first_ten.size())) return spec_.first_ten[s - 1];
      [[fallthrough]];
    case SeekCurveSpec::Form::ThreePiece:
      if (s == 1 && spec_.form == SeekCurveSpec::Form::ThreePiece) return spec_.single_cylinder_ms;
      [[fallthrough]];
    case SeekCurveSpec::Form::TwoPiece:
      if (s <= spec_.boundary) return spec_.short_a + spec_.short_b * std::sqrt(static_cast<double>(s));
      return spec_.long_a + spec_.long_b * static_cast<double>(s);
    case SeekCurveSpec::Form::Table: {
      const auto& p = spec_.points;
      if (p.empty()) return 0.0;
      // Below the first measured distance any seek still costs at least its settle.
      if (s <= p.front().first) return p.front().second;
      if (s >= p.back().first) {
        if (!spec_.extrapolate || p.size() < 2 || s == p.back().first) return p.back().second;
        const auto& [d1, t1] = p[p.size() - 2];
        const auto& [d2, t2] = p.back();
        return std::max(0.0, t2 + (t2 - t1) * static_cast<double>(s - d2) / static_cast<double>(d2 - d1));
      }
      auto hi = std::lower_bound(p.begin(), p.end(), s,
                                 [](const auto& pt, std::int64_t d) { return pt.first < d; });
      auto lo = hi - 1;
      if (hi->first == s) return hi->second;
      double f = static_cast<double>(s - lo->first) / static_cast<double>(hi->first - lo->first);
      return lo->second + f * (hi->second - lo->second);
    }
  }
  return 0.0;
}

}  // namespace disksched
