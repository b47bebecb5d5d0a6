#include "predictor/seek_curve.hpp"

#include <algorithm>
#include <cmath>

namespace disksched {

const char* seek_form_name(SeekCurveSpec::Form f) {
  switch (f) {
    case SeekCurveSpec::Form::TwoPiece: return "two-piece";
    case SeekCurveSpec::Form::ThreePiece: return "three-piece";
    case SeekCurveSpec::Form::Table: return "table";
  }
  return "?";
}

SeekCurve::SeekCurve(const SeekCurveSpec& spec, std::int64_t cylinders) : spec_(spec) {
  table_.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(cylinders, 1, 1 << 14)));  // 128 KB
  for (std::size_t s = 0; s < table_.size(); ++s) table_[s] = evaluate(static_cast<std::int64_t>(s));
}

Millis SeekCurve::evaluate(std::int64_t s) const {
  if (s < 0) s = -s;
  if (s == 0) return 0.0;
  switch (spec_.form) {
    case SeekCurveSpec::Form::ThreePiece:
      if (s == 1) return spec_.single_cylinder_ms;
      [[fallthrough]];
    case SeekCurveSpec::Form::TwoPiece:
      if (s <= spec_.boundary) return spec_.short_a + spec_.short_b * std::sqrt(static_cast<double>(s));
      return spec_.long_a + spec_.long_b * static_cast<double>(s);
    case SeekCurveSpec::Form::Table: {
      const auto& p = spec_.points;
      if (p.empty()) return 0.0;
      // Below the first measured distance any seek still costs at least its settle.
      if (s <= p.front().first) return p.front().second;
      if (s >= p.back().first) return p.back().second;
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
