#include "tools/extract/seek_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tools/extract/stats.hpp"

namespace disksched::extract {
namespace {

// Residuals beyond this count as this much when choosing the breakpoint, so that
// one wild point cannot choose it.
constexpr double kClipMs = 0.5;

struct Piece {
  double a = 0, b = 0;
  bool ok = false;
};

Piece fit_piece(const std::vector<SeekPoint>& pts, bool sqrt_form) {
  std::vector<double> x, y;
  for (const auto& p : pts) {
    x.push_back(sqrt_form ? std::sqrt(static_cast<double>(p.distance)) : static_cast<double>(p.distance));
    y.push_back(p.ms);
  }
  Piece pc;
  if (x.size() < 2) return pc;
  const LineFit f = robust_line(x, y, 4.0, 3, 0.01);
  pc.a = f.intercept;
  pc.b = f.slope;
  pc.ok = true;
  return pc;
}

double eval_two(const Piece& s, const Piece& l, std::int64_t boundary, std::int64_t d) {
  const double x = static_cast<double>(d);
  return d <= boundary ? s.a + s.b * std::sqrt(x) : l.a + l.b * x;
}

struct TwoPiece {
  Piece shrt, lng;
  std::int64_t boundary = 0;
  double score = std::numeric_limits<double>::infinity();
};

// Best two-piece fit of `pts` (sorted by distance, one or more samples per distance).
TwoPiece fit_two_piece(const std::vector<SeekPoint>& pts) {
  std::vector<std::int64_t> ds;
  for (const auto& p : pts)
    if (ds.empty() || ds.back() != p.distance) ds.push_back(p.distance);
  TwoPiece best;
  // Short part needs three distances; the long part two (or none: pure sqrt).
  for (std::size_t k = 2; k < ds.size(); ++k) {
    const std::int64_t b = ds[k];
    std::vector<SeekPoint> s, l;
    for (const auto& p : pts) (p.distance <= b ? s : l).push_back(p);
    std::size_t long_distances = static_cast<std::size_t>(ds.end() - (ds.begin() + static_cast<long>(k) + 1));
    if (long_distances == 1) continue;
    TwoPiece t;
    t.boundary = b;
    t.shrt = fit_piece(s, true);
    t.lng = long_distances == 0 ? Piece{t.shrt.a, 0, true} : fit_piece(l, false);
    if (long_distances == 0) t.boundary = ds.back();
    t.score = 0;
    for (const auto& p : pts) {
      const double r = p.ms - eval_two(t.shrt, t.lng, t.boundary, p.distance);
      t.score += std::min(r * r, kClipMs * kClipMs);
    }
    if (t.score < best.score) best = t;
  }
  return best;
}

double rms_against(const std::vector<SeekPoint>& pts, const SeekCurveSpec& spec) {
  if (pts.empty()) return 0.0;
  SeekCurve c(spec, 0);
  double ss = 0;
  for (const auto& p : pts) {
    const double r = p.ms - c.evaluate(p.distance);
    ss += r * r;
  }
  return std::sqrt(ss / static_cast<double>(pts.size()));
}

SeekCurveSpec two_spec(const TwoPiece& t) {
  SeekCurveSpec s;
  s.form = SeekCurveSpec::Form::TwoPiece;
  s.short_a = t.shrt.a;
  s.short_b = t.shrt.b;
  s.boundary = t.boundary;
  s.long_a = t.lng.a;
  s.long_b = t.lng.b;
  return s;
}

bool valid(const SeekCurveSpec& s) {
  return s.short_a >= 0 && s.short_b >= 0 && s.long_a >= 0 && s.long_b >= 0 &&
         s.single_cylinder_ms >= 0;
}

}  // namespace

SeekFit fit_seek_curve(const std::vector<SeekPoint>& in, SeekForm form) {
  SeekFit out;
  std::vector<SeekPoint> pts;
  for (const auto& p : in)
    if (p.distance > 0 && std::isfinite(p.ms)) pts.push_back(p);
  std::sort(pts.begin(), pts.end(), [](const SeekPoint& a, const SeekPoint& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.ms < b.ms);
  });
  // Per-distance medians: the table, and the points the forms are fitted to.
  std::map<std::int64_t, std::vector<double>> by;
  for (const auto& p : pts) by[p.distance].push_back(p.ms);
  for (auto& [d, v] : by) out.table.push_back({d, median(v)});

  SeekCurveSpec table;
  table.form = SeekCurveSpec::Form::Table;
  for (const auto& p : out.table) table.points.emplace_back(p.distance, p.ms);
  if (out.table.size() < 4 || form == SeekForm::Table) {
    out.spec = table;
    out.form = "table";
    return out;
  }

  // Reject gross outliers against a first fit on the medians, then refit. The
  // single-cylinder seek is never an outlier: it has its own term in the three-piece
  // form (settle-dominated plateaus make it sit off the sqrt curve).
  std::vector<SeekPoint> kept = out.table;
  for (int round = 0; round < 2; ++round) {
    std::vector<SeekPoint> rest;
    for (const auto& p : kept)
      if (p.distance > 1) rest.push_back(p);
    if (rest.size() < 4) break;
    TwoPiece first = fit_two_piece(rest);
    std::vector<double> res;
    for (const auto& p : rest) res.push_back(p.ms - eval_two(first.shrt, first.lng, first.boundary, p.distance));
    const double limit = std::max(4.0 * robust_sigma(res), 0.05);
    std::vector<SeekPoint> next;
    if (kept.front().distance == 1) next.push_back(kept.front());
    for (std::size_t i = 0; i < rest.size(); ++i)
      (std::fabs(res[i]) <= limit ? next : out.rejected).push_back(rest[i]);
    if (next.size() == kept.size() || next.size() < 4) break;
    kept = next;
  }

  const TwoPiece two = fit_two_piece(kept);
  const SeekCurveSpec two_s = two_spec(two);
  out.two_piece_rms_ms = rms_against(kept, two_s);

  SeekCurveSpec three_s;
  bool have_three = false;
  if (kept.front().distance == 1) {
    std::vector<SeekPoint> rest(kept.begin() + 1, kept.end());
    if (rest.size() >= 4) {
      const TwoPiece t = fit_two_piece(rest);
      three_s = two_spec(t);
      three_s.form = SeekCurveSpec::Form::ThreePiece;
      three_s.single_cylinder_ms = kept.front().ms;
      have_three = valid(three_s);
      out.three_piece_rms_ms = rms_against(kept, three_s);
    }
  }

  const bool two_ok = valid(two_s);
  if (form == SeekForm::TwoPiece && two_ok) {
    out.spec = two_s;
  } else if (form == SeekForm::ThreePiece && have_three) {
    out.spec = three_s;
  } else if (form == SeekForm::Auto) {
    // The extra single-cylinder parameter must earn its place.
    if (have_three && (!two_ok || out.three_piece_rms_ms < 0.8 * out.two_piece_rms_ms - 0.005))
      out.spec = three_s;
    else if (two_ok)
      out.spec = two_s;
    else
      out.spec = table;
    // A curve that does not follow the measurements is worse than the measurements.
    if (out.spec.form != SeekCurveSpec::Form::Table && rms_against(kept, out.spec) > 0.3)
      out.spec = table;
  } else {
    out.spec = table;
  }
  out.form = seek_form_name(out.spec.form);
  out.rms_ms = rms_against(kept, out.spec);
  return out;
}

double seek_rms_difference(const SeekCurveSpec& a, const SeekCurveSpec& b, std::int64_t max_distance) {
  SeekCurve ca(a, 0), cb(b, 0);
  double ss = 0;
  for (std::int64_t d = 1; d <= max_distance; ++d) {
    const double r = ca.evaluate(d) - cb.evaluate(d);
    ss += r * r;
  }
  return max_distance > 0 ? std::sqrt(ss / static_cast<double>(max_distance)) : 0.0;
}

}  // namespace disksched::extract
