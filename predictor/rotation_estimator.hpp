// Refines a rotating disk's period and phase from completions while it runs (issue 7:
// "keeps refining the rotation period and the per-track phase from completions while
// it runs, so drift does not accumulate"). Pure: observations in, estimates out; the
// caller owns the clock and decides when to apply them (DeviceModel::anchor_rotation).
//
// Each observation says: at time t the platter was at angle a (rotations), e.g. a
// completion at t of a transfer that ended at DiskModel::end_angle(). Under the nominal
// period T0 it implies the phase p = a - t / T0 (mod 1). If the platter really turns
// with period T, the implied phases drift linearly: p(t) = p0 + (1/T - 1/T0) t. A robust
// line through the unwrapped implied phases of the last `window` observations gives
// both the phase and the period (reference notes §4.3.1: integer-revolution unwrapping,
// least squares, MAD rejection; a long baseline makes the period precise).
//
// Header-only so that the daemon can use it without a build change; written alongside
// `disksched extract` (tools/extract), whose offline period estimate it continues.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <deque>
#include <stdexcept>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched {

class RotationEstimator {
 public:
  struct Options {
    Millis nominal_period_ms = 0.0;    // T0: the profile's period
    std::size_t window = 256;          // observations kept (newest)
    double reject_sigmas = 4.0;        // residuals beyond this many robust sigmas are outliers
    Millis min_baseline_ms = 2000.0;   // the period is refined only over at least this span
    double max_relative_change = 0.01; // a period further than this from T0 is not believed
  };

  explicit RotationEstimator(Options o) : o_(o) {
    if (!(o_.nominal_period_ms > 0)) throw std::invalid_argument("RotationEstimator: nominal period must be > 0");
    if (o_.window < 3) o_.window = 3;
  }

  // At time t (ms) the platter was at `angle` (rotations, any real number).
  void add(Millis t, double angle) {
    const double implied = angle - t / o_.nominal_period_ms;
    // Unwrap against the current fit so that the line stays continuous.
    double p = implied - std::floor(implied);
    if (have_fit_) {
      const double predicted = intercept_ + slope_ * (t - t_ref_);
      p += std::round(predicted - p);
    } else if (!obs_.empty()) {
      p += std::round(obs_.back().p - p);
    }
    obs_.push_back({t, p});
    while (obs_.size() > o_.window) obs_.pop_front();
    refit();
  }

  // The platter's angle at time t is frac(t / period_ms() + phase()).
  Millis period_ms() const { return 1.0 / (1.0 / o_.nominal_period_ms + slope_); }
  double phase() const {
    // intercept_ is the implied phase at t_ref_ under T0; express it for period_ms().
    const double p = intercept_ - slope_ * t_ref_;
    return p - std::floor(p);
  }
  double angle_at(Millis t) const {
    const double a = t / period_ms() + phase();
    return a - std::floor(a);
  }
  // Robust sigma of the residuals, in rotations (how well completions agree).
  double residual_sigma() const { return sigma_; }
  std::size_t observations() const { return obs_.size(); }
  std::size_t outliers() const { return outliers_; }
  // True once the window spans min_baseline_ms and the period moved off T0.
  bool period_refined() const { return period_refined_; }

 private:
  struct Obs {
    Millis t;
    double p;  // unwrapped implied phase
  };

  static double median(std::vector<double> v) {
    const std::size_t n = v.size();
    std::nth_element(v.begin(), v.begin() + static_cast<long>(n / 2), v.end());
    double hi = v[n / 2];
    if (n % 2) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + static_cast<long>(n / 2)));
  }

  // Least squares (slope free, or fixed at `b_fixed`) with three rounds of MAD
  // rejection, about t_ref_.
  void fit(bool free_slope, double b_fixed, double& a, double& b, double& sigma, std::size_t& out) const {
    std::vector<bool> keep(obs_.size(), true);
    a = 0;
    b = b_fixed;
    sigma = 0;
    out = 0;
    for (int round = 0; round < 3; ++round) {
      double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
      std::vector<double> v;
      for (std::size_t i = 0; i < obs_.size(); ++i) {
        if (!keep[i]) continue;
        const double x = obs_[i].t - t_ref_, y = obs_[i].p;
        n += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        v.push_back(y - b_fixed * x);
      }
      if (n < 1) break;
      if (free_slope && n >= 3 && n * sxx - sx * sx > 0) {
        b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        a = (sy - b * sx) / n;
      } else {
        b = b_fixed;
        a = median(v);
      }
      std::vector<double> res, dev;
      for (const auto& o : obs_) res.push_back(o.p - a - b * (o.t - t_ref_));
      const double m = median(res);
      for (double r : res) dev.push_back(std::fabs(r - m));
      sigma = 1.4826 * median(dev);
      const double limit = std::max(o_.reject_sigmas * sigma, 1e-6);
      out = 0;
      for (std::size_t i = 0; i < obs_.size(); ++i) {
        keep[i] = std::fabs(res[i]) <= limit;
        out += !keep[i];
      }
    }
  }

  void refit() {
    t_ref_ = obs_.back().t;
    const Millis span = obs_.back().t - obs_.front().t;
    const bool try_slope = obs_.size() >= 8 && span >= o_.min_baseline_ms;
    double a = 0, b = slope_, sigma = 0;
    std::size_t out = 0;
    fit(try_slope, slope_, a, b, sigma, out);
    // Never believe a period far from the nominal one (a wrong unwrap, a bad profile).
    if (try_slope && std::fabs(o_.nominal_period_ms * b) > o_.max_relative_change)
      fit(false, slope_, a, b, sigma, out);
    else if (try_slope)
      period_refined_ = true;
    intercept_ = a;
    slope_ = b;
    sigma_ = sigma;
    outliers_ = out;
    have_fit_ = true;
  }

  Options o_;
  std::deque<Obs> obs_;
  double intercept_ = 0.0;  // implied phase (under T0) at t_ref_
  double slope_ = 0.0;      // 1/T - 1/T0
  Millis t_ref_ = 0.0;
  double sigma_ = 0.0;
  std::size_t outliers_ = 0;
  bool have_fit_ = false;
  bool period_refined_ = false;
};

}  // namespace disksched
