// Refines a rotating disk's period and phase from completions while it runs (issue 7:
// "keeps refining the rotation period and the per-track phase from completions while
// it runs, so drift does not accumulate"). Pure: observations in, estimates out; the
// caller owns the clock and decides when to apply them (HeadTracker: its spin).
//
// Each observation says: at time t the platter was at angle a (rotations), e.g. a
// completion at t of a transfer that ended at DiskModel::end_angle(). Under the nominal
// period T0 it implies the phase p = a - t / T0 (mod 1). If the platter really turns
// with period T, the implied phases drift linearly: p(t) = p0 + (1/T - 1/T0) t, and the
// slope of a line through the unwrapped phases of the last `window` observations gives
// the period (reference notes §4.3.1: integer-revolution unwrapping, robust fitting, a
// long baseline makes the period precise).
//
// What goes wrong and how it is handled:
// - Late reports (a busy host, a device that answers late) imply phases that are off by
//   many sectors, all on one side. A least-squares line through them moves the period.
//   So the line is first fitted robustly (median of pair slopes, median intercept), the
//   observations further than `reject_rotations` (one to two sectors) from it are
//   dropped, and only then is a least-squares line fitted to the rest (twice).
// - Unwrapping across an idle gap is ambiguous when the period is not yet known well
//   enough: a 0.2 % error turns a 4 s gap into half a rotation. A gap longer than the
//   current period uncertainty can bridge starts a new segment; each segment has its own
//   intercept and only the slope is shared (pooled within-segment least squares).
// - A new period is adopted only when the fit spans `min_baseline_ms`, enough
//   observations agree with it, its standard error is below `max_uncertainty`, and it
//   lies within `max_relative_change` of T0 (a disk's spindle tolerance): a bad run of
//   reports can never move the period beyond that bound.
//
// Header-only so that the daemon can use it without a build change; written alongside
// `disksched extract` (tools/extract), whose offline period estimate it continues.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched {

class RotationEstimator {
 public:
  struct Options {
    Millis nominal_period_ms = 0.0;    // T0: the profile's period
    std::size_t window = 512;          // observations kept (newest)
    double reject_rotations = 0.02;    // further than this from the robust line: an outlier
    Millis min_baseline_ms = 1000.0;   // a period is adopted only over at least this span
    double max_relative_change = 0.01; // |T / T0 - 1| never exceeds this (spindle tolerance)
    double max_uncertainty = 2e-5;     // adopt only when the period's relative std error is below
    std::size_t min_inliers = 16;      // ... and at least this many observations agree
    // Refit after this many observations, or after half the observations held if that
    // is more (and whenever a segment starts): a fit costs tens of microseconds over a
    // full window, spread over half of it a few tens of nanoseconds per completion; a
    // period fitted over 512 completions moves little in the next 256.
    std::size_t refit_every = 8;
    // Leave the periodic refit to the owner (refit_due(), then fitted() on a copy and
    // adopt() its result): the filter runs it on its calibration thread, off the
    // completion path. A new segment's refit still runs at once (it unwraps what follows).
    bool defer_refit = false;
  };

  explicit RotationEstimator(Options o) : o_(o) {
    if (!(o_.nominal_period_ms > 0))
      throw std::invalid_argument("RotationEstimator: nominal period must be > 0");
    if (!(o_.reject_rotations > 0 && o_.reject_rotations < 0.5))
      throw std::invalid_argument("RotationEstimator: reject_rotations must be in (0, 0.5)");
    if (!(o_.max_relative_change > 0 && o_.max_relative_change < 0.5))
      throw std::invalid_argument("RotationEstimator: max_relative_change must be in (0, 0.5)");
    if (o_.window < 3) o_.window = 3;
    if (o_.min_inliers < 3) o_.min_inliers = 3;
    if (o_.refit_every == 0) o_.refit_every = 1;
  }

  // At time t (ms, non-decreasing) the platter was at `angle` (rotations, any real).
  void add(Millis t, double angle) {
    const double raw = angle - t / o_.nominal_period_ms;
    double p = raw - std::floor(raw);
    std::uint64_t segment = next_segment_;
    bool new_segment = obs_.empty();
    if (!obs_.empty()) {
      const Obs& last = obs_.back();
      // How far the phase could have drifted unseen over the gap, in rotations.
      const double ambiguity = (t - last.t) / o_.nominal_period_ms * unwrap_uncertainty();
      if (ambiguity <= 0.25) {
        segment = last.segment;
      } else {
        ++next_segment_;
        segment = next_segment_;
        ++segments_started_;
        new_segment = true;
      }
      // Unwrap against the newest segment's line (any integer will do for a new segment).
      const double predicted = line_intercept_ + fit_slope_ * (t - t_ref_);
      p += std::round(predicted - p);
    }
    obs_.push_back({t, p, segment, true});
    while (obs_.size() > o_.window) obs_.pop_front();
    // A new segment refits at once so that its own line unwraps what follows.
    if (new_segment || ++since_refit_ >= std::max(o_.refit_every, obs_.size() / 2) ||
        obs_.size() < o_.min_inliers) {
      since_refit_ = 0;
      if (o_.defer_refit && !new_segment && obs_.size() >= o_.min_inliers)
        refit_due_ = true;
      else
        refit();
    }
  }

  // Deferred mode: a periodic refit is waiting (see Options::defer_refit).
  bool refit_due() const { return refit_due_; }
  // This estimator refitted over the observations it holds now (a copy: safe to run on
  // another thread from a snapshot).
  RotationEstimator fitted() const {
    RotationEstimator e = *this;
    e.refit();
    return e;
  }
  // Takes a fit computed by fitted() on an earlier snapshot of this estimator: its line,
  // its adopted period and its counts. Observations added since keep their unwrapping.
  // A snapshot from before a segment started here is stale (that segment's own refit
  // has run since): it is dropped, and false returned.
  bool adopt(const RotationEstimator& f) {
    if (f.segments_started_ != segments_started_) return false;
    t_ref_ = f.t_ref_;
    fit_slope_ = f.fit_slope_;
    fit_se_rel_ = f.fit_se_rel_;
    fit_trusted_ = f.fit_trusted_;
    line_intercept_ = f.line_intercept_;
    slope_ = f.slope_;
    phase_intercept_ = f.phase_intercept_;
    sigma_ = f.sigma_;
    outliers_ = f.outliers_;
    out_of_bounds_ = f.out_of_bounds_;
    period_refined_ = f.period_refined_;
    refit_due_ = false;
    return true;
  }
  // Fits run by add() itself (in deferred mode only a new segment's).
  std::uint64_t inline_fits() const { return inline_fits_; }

  // The adopted period; the platter's angle at time t is frac(t / period_ms() + phase()).
  Millis period_ms() const { return 1.0 / (1.0 / o_.nominal_period_ms + slope_); }
  Millis nominal_period_ms() const { return o_.nominal_period_ms; }
  // period_ms() / T0 - 1 (e.g. -0.002 for a platter 0.2 % fast).
  double relative_change() const { return period_ms() / o_.nominal_period_ms - 1.0; }
  double phase() const {
    const double p = phase_intercept_ - slope_ * t_ref_;
    return p - std::floor(p);
  }
  double angle_at(Millis t) const {
    const double a = t / period_ms() + phase();
    return a - std::floor(a);
  }
  // The latest fit, adopted or not: its period and relative standard error.
  Millis fitted_period_ms() const { return 1.0 / (1.0 / o_.nominal_period_ms + fit_slope_); }
  double fitted_uncertainty() const { return fit_se_rel_; }
  // Standard deviation of the inliers about the fit, in rotations.
  double residual_sigma() const { return sigma_; }
  std::size_t observations() const { return obs_.size(); }
  std::size_t outliers() const { return outliers_; }
  // New segments started because a gap was too long to unwrap across.
  std::uint64_t segments_started() const { return segments_started_; }
  // Fits that would have moved the period beyond max_relative_change (not adopted).
  std::uint64_t fits_out_of_bounds() const { return out_of_bounds_; }
  // True once a period was adopted.
  bool period_refined() const { return period_refined_; }

 private:
  struct Obs {
    Millis t;
    double p;               // implied phase under T0, unwrapped within its segment
    std::uint64_t segment;  // observations of one segment unwrap against each other
    bool inlier;
  };

  struct LineFit {
    bool ok = false;
    double slope = 0.0;
    double se = INFINITY;   // standard error of the slope (rotations per ms)
    double sigma = 0.0;
    std::size_t inliers = 0;
  };

  static double median(std::vector<double>& v) {
    const std::size_t n = v.size();
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(v.begin(), mid, v.end());
    const double hi = *mid;
    if (n % 2) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), mid));
  }

  // Relative period uncertainty used to decide whether a gap can be unwrapped across.
  double unwrap_uncertainty() const {
    if (!fit_trusted_) return o_.max_relative_change;
    return std::min(o_.max_relative_change, std::max(4.0 * fit_se_rel_, o_.max_uncertainty));
  }

  // Index ranges [begin, end) of the segments in obs_ (observations are in time order).
  std::vector<std::pair<std::size_t, std::size_t>> segments() const {
    std::vector<std::pair<std::size_t, std::size_t>> s;
    for (std::size_t i = 0; i < obs_.size(); ++i) {
      if (i == 0 || obs_[i].segment != obs_[i - 1].segment) s.push_back({i, i});
      s.back().second = i + 1;
    }
    return s;
  }

  // Per-segment intercept at t_ref_ for slope b: the median of the segment's inliers
  // (all of them when `all`).
  std::vector<double> intercepts(const std::vector<std::pair<std::size_t, std::size_t>>& segs,
                                 double b, bool all) const {
    std::vector<double> a(segs.size(), 0.0), v;
    for (std::size_t k = 0; k < segs.size(); ++k) {
      v.clear();
      for (std::size_t i = segs[k].first; i < segs[k].second; ++i)
        if (all || obs_[i].inlier) v.push_back(obs_[i].p - b * (obs_[i].t - t_ref_));
      if (v.empty())
        for (std::size_t i = segs[k].first; i < segs[k].second; ++i)
          v.push_back(obs_[i].p - b * (obs_[i].t - t_ref_));
      a[k] = median(v);
    }
    return a;
  }

  // Marks the observations within reject_rotations of the line (slope b, intercepts a).
  std::size_t mark_inliers(const std::vector<std::pair<std::size_t, std::size_t>>& segs,
                           double b, const std::vector<double>& a) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < segs.size(); ++k)
      for (std::size_t i = segs[k].first; i < segs[k].second; ++i) {
        const double r = obs_[i].p - a[k] - b * (obs_[i].t - t_ref_);
        obs_[i].inlier = std::fabs(r) <= o_.reject_rotations;
        n += obs_[i].inlier;
      }
    return n;
  }

  // Robust start: the median slope of pairs half a segment apart (Theil-Sen on split
  // halves: every pair spans a long baseline, and it costs O(n)).
  bool robust_slope(const std::vector<std::pair<std::size_t, std::size_t>>& segs, double& b) const {
    std::vector<double> slopes;
    for (const auto& [begin, end] : segs) {
      const std::size_t n = end - begin, h = n / 2;
      for (std::size_t i = begin; h > 0 && i + h < end; ++i) {
        const double dt = obs_[i + h].t - obs_[i].t;
        if (dt > 0) slopes.push_back((obs_[i + h].p - obs_[i].p) / dt);
      }
    }
    if (slopes.empty()) return false;
    b = median(slopes);
    return true;
  }

  // Least squares over the inliers, one intercept per segment, one shared slope.
  LineFit pooled_fit(const std::vector<std::pair<std::size_t, std::size_t>>& segs,
                     std::vector<double>& a) const {
    LineFit f;
    double sxx = 0, sxy = 0;
    std::size_t used_segments = 0;
    std::vector<double> tm(segs.size(), 0.0), pm(segs.size(), 0.0);
    for (std::size_t k = 0; k < segs.size(); ++k) {
      std::size_t n = 0;
      for (std::size_t i = segs[k].first; i < segs[k].second; ++i)
        if (obs_[i].inlier) {
          tm[k] += obs_[i].t - t_ref_;
          pm[k] += obs_[i].p;
          ++n;
        }
      if (n == 0) continue;
      ++used_segments;
      f.inliers += n;
      tm[k] /= static_cast<double>(n);
      pm[k] /= static_cast<double>(n);
      for (std::size_t i = segs[k].first; i < segs[k].second; ++i)
        if (obs_[i].inlier) {
          const double x = obs_[i].t - t_ref_ - tm[k];
          sxx += x * x;
          sxy += x * (obs_[i].p - pm[k]);
        }
    }
    if (!(sxx > 0) || f.inliers < used_segments + 2) return f;
    f.slope = sxy / sxx;
    double ssr = 0;
    for (std::size_t k = 0; k < segs.size(); ++k) {
      a[k] = pm[k] - f.slope * tm[k];
      for (std::size_t i = segs[k].first; i < segs[k].second; ++i)
        if (obs_[i].inlier) {
          const double r = obs_[i].p - a[k] - f.slope * (obs_[i].t - t_ref_);
          ssr += r * r;
        }
    }
    const double dof = static_cast<double>(f.inliers - used_segments - 1);
    f.sigma = std::sqrt(ssr / dof);
    f.se = f.sigma / std::sqrt(sxx);
    f.ok = true;
    return f;
  }

  void refit() {
    ++inline_fits_;
    refit_due_ = false;
    t_ref_ = obs_.back().t;
    const auto segs = segments();
    double b = fit_slope_;
    robust_slope(segs, b);
    std::vector<double> a = intercepts(segs, b, true);
    mark_inliers(segs, b, a);
    LineFit f;
    for (int round = 0; round < 2; ++round) {
      f = pooled_fit(segs, a);
      if (!f.ok) break;
      b = f.slope;
      mark_inliers(segs, b, a);
    }
    if (f.ok) f = pooled_fit(segs, a);  // the final inlier set's line and error

    std::size_t in = 0;
    Millis first = INFINITY, last = -INFINITY;
    for (const Obs& o : obs_)
      if (o.inlier) {
        ++in;
        first = std::min(first, o.t);
        last = std::max(last, o.t);
      }
    outliers_ = obs_.size() - in;

    if (f.ok) {
      fit_slope_ = f.slope;
      fit_se_rel_ = f.se * o_.nominal_period_ms;
      sigma_ = f.sigma;
      fit_trusted_ = f.inliers >= o_.min_inliers;
      const double change = -fit_slope_ * o_.nominal_period_ms / (1.0 + fit_slope_ * o_.nominal_period_ms);
      const bool enough = f.inliers >= o_.min_inliers && 2 * in >= obs_.size() &&
                          last - first >= o_.min_baseline_ms && fit_se_rel_ <= o_.max_uncertainty;
      if (enough && std::fabs(change) > o_.max_relative_change) {
        ++out_of_bounds_;
      } else if (enough) {
        // The fit is trusted. Move the period only by a change the fit can tell from the
        // adopted one and that matters: rounding noise on an exact device must not move
        // every predicted angle.
        if (std::fabs(fit_slope_ - slope_) * o_.nominal_period_ms >
            std::max(2.0 * fit_se_rel_, kNegligibleChange))
          slope_ = fit_slope_;
        period_refined_ = true;
      }
    } else {
      a = intercepts(segs, fit_slope_, false);
    }
    line_intercept_ = a.back();
    phase_intercept_ = intercepts(segs, slope_, false).back();
  }

  // A relative period change below this drifts by a sector of a 72-sector track only
  // after 10^7 rotations; re-anchoring at each completion absorbs it long before.
  static constexpr double kNegligibleChange = 1e-9;

  Options o_;
  std::deque<Obs> obs_;
  std::uint64_t next_segment_ = 0;
  std::size_t since_refit_ = 0;
  std::uint64_t segments_started_ = 0;
  Millis t_ref_ = 0.0;
  double fit_slope_ = 0.0;        // latest fit: 1/T - 1/T0
  double fit_se_rel_ = INFINITY;  // its relative standard error
  bool fit_trusted_ = false;
  double line_intercept_ = 0.0;   // newest segment's implied phase at t_ref_ (fit slope)
  double slope_ = 0.0;            // adopted: 1/T - 1/T0
  double phase_intercept_ = 0.0;  // newest segment's implied phase at t_ref_ (adopted slope)
  double sigma_ = 0.0;
  std::size_t outliers_ = 0;
  std::uint64_t out_of_bounds_ = 0;
  bool period_refined_ = false;
  bool refit_due_ = false;
  std::uint64_t inline_fits_ = 0;
};

}  // namespace disksched
