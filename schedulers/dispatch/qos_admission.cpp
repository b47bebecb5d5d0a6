#include "schedulers/dispatch/qos_admission.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace disksched {
namespace {

// The window's quantile must be this far under the target before the depth grows: a
// depth that only just meets the target is kept, not probed past it.
constexpr double kGrowBelow = 0.8;
// A depth that failed when probed is probed again after twice as many good windows, up
// to this many: a drive that starves the foreground one step up (its own
// shortest-positioning order beside a sequential scrub) is not probed every window.
constexpr unsigned kMaxGrowAfter = 64;

std::size_t index_of(IoClass c) { return static_cast<std::size_t>(c); }

}  // namespace

QosAdmission::QosAdmission(QosConfig c) : c_(c), depth_(c.max_depth) {
  if (c_.min_depth == 0) throw std::invalid_argument("qos: min-depth must be at least 1");
  if (c_.min_depth > c_.max_depth)
    throw std::invalid_argument("qos: min-depth is above max-depth");
  if (c_.window == 0) throw std::invalid_argument("qos: window must be at least 1");
  if (!(c_.quantile > 0.0 && c_.quantile < 1.0))
    throw std::invalid_argument("qos: the quantile must lie in (0, 1)");
  if (!(c_.target_ms > 0.0)) throw std::invalid_argument("qos: target must be > 0");
  allowed_misses_ =
      static_cast<std::size_t>(std::floor((1.0 - c_.quantile) * static_cast<double>(c_.window)));
  ratios_.reserve(c_.window);
  stats_.depth = depth_;
  stats_.min_depth_seen = depth_;
}

// A time-limited request is judged by limited-target when given, else by its own limit
// (the class rule's limited:TIME), else by the target.
Millis QosAdmission::target_of(IoClass c, Millis limit_ms) const {
  if (c != IoClass::TimeLimited) return c_.target_ms;
  if (c_.limited_target_ms > 0) return c_.limited_target_ms;
  return limit_ms > 0 ? limit_ms : c_.target_ms;
}

QosAdmission::Grant QosAdmission::next(Millis now, bool fg_waiting, bool bg_waiting,
                                       Millis oldest_bg_arrival) const {
  const unsigned total = in_flight();
  if (!c_.control) {
    if (total >= c_.max_depth) return Grant::None;
    return fg_waiting ? Grant::Foreground : bg_waiting ? Grant::Background : Grant::None;
  }
  if (total >= depth_) return Grant::None;
  const bool bg_room = bg_waiting && (c_.bg_depth == 0 || bg_in_flight_ < c_.bg_depth);
  const bool overdue = bg_waiting && c_.bg_wait_ms > 0 && now - oldest_bg_arrival >= c_.bg_wait_ms;
  // Overdue requests take turns with the foreground, beyond bg-depth (one at a time behind
  // a deep foreground queue in the drive would wait its age limit each): a flood of them
  // neither starves the foreground nor waits unboundedly.
  if (overdue && !(fg_waiting && last_overdue_)) return Grant::Background;
  if (fg_waiting) {
    if (bg_room && c_.bg_share > 0 && bg_credit_ >= 1.0) return Grant::Background;
    return Grant::Foreground;
  }
  // The foreground's request at the drive would wait for a background one sent beside it.
  return bg_room && fg_in_flight_ == 0 ? Grant::Background : Grant::None;
}

void QosAdmission::admitted(IoClass c, Millis arrival, Millis now) {
  QosClassStats& s = stats_.cls[index_of(c)];
  ++s.admitted;
  const Millis wait = now - arrival;
  s.max_wait_ms = std::max(s.max_wait_ms, wait);
  last_overdue_ = !foreground(c) && c_.control && c_.bg_wait_ms > 0 && wait >= c_.bg_wait_ms;
  if (last_overdue_) ++s.overdue;
  // bg-share: each foreground dispatch earns the background share / (1 - share) of one,
  // so under contention the background takes `share` of the dispatches.
  if (foreground(c)) {
    if (c_.bg_share > 0)
      bg_credit_ = c_.bg_share >= 1.0 ? 1.0
                                      : std::min(2.0, bg_credit_ + c_.bg_share / (1.0 - c_.bg_share));
  } else if (bg_credit_ >= 1.0) {
    bg_credit_ -= 1.0;
  }
  adopt(c);
}

void QosAdmission::adopt(IoClass c) {
  if (foreground(c))
    ++fg_in_flight_;
  else
    ++bg_in_flight_;
}

void QosAdmission::completed(IoClass c, Millis arrival, Millis dispatched, Millis now,
                             Millis limit_ms) {
  unsigned& n = foreground(c) ? fg_in_flight_ : bg_in_flight_;
  if (n > 0) --n;  // a request from before a switch may not have been counted
  QosClassStats& s = stats_.cls[index_of(c)];
  ++s.completed;
  const Millis response = now - arrival;
  s.max_response_ms = std::max(s.max_response_ms, response);
  const Millis target = target_of(c, limit_ms);
  if (foreground(c) && response > target) ++s.over_target;
  // A request that went to the drive before the depth changed says nothing of the new one.
  if (c_.control && foreground(c) && dispatched >= changed_ms_) observe(target, response, now);
}

void QosAdmission::observe(Millis target_ms, Millis response_ms, Millis now) {
  const double ratio = response_ms / target_ms;
  ratios_.push_back(ratio);
  if (ratio > 1.0) {
    ++misses_;
    smallest_miss_ = std::min(smallest_miss_, ratio);
  }
  if (misses_ > allowed_misses_) {
    // The window's quantile is over the target whatever the rest of it brings, by at
    // least the smallest miss: cut by that factor when it is more than 3/4 asks. A drive
    // that starved the foreground to its age limit (20x a 50 ms target) is brought down
    // in one step, not in nine, each waiting for two starved responses.
    const auto proportional = static_cast<unsigned>(static_cast<double>(depth_) / smallest_miss_);
    const unsigned cut = std::min({depth_ - 1, depth_ * 3 / 4, proportional});
    if (depth_ > c_.min_depth) ++stats_.shrinks;
    if (probing_) grow_after_ = std::min(kMaxGrowAfter, grow_after_ * 2);
    probing_ = false;
    good_windows_ = 0;
    set_depth(std::max(c_.min_depth, cut), now);
    return;
  }
  if (ratios_.size() < c_.window) return;
  if (probing_) {  // a grown depth held for a whole window
    probing_ = false;
    grow_after_ = 1;
  }
  std::sort(ratios_.begin(), ratios_.end());
  const auto k = static_cast<std::size_t>(std::ceil(c_.quantile * static_cast<double>(ratios_.size())));
  const double q = ratios_[std::min(ratios_.size() - 1, k == 0 ? 0 : k - 1)];
  good_windows_ = q < kGrowBelow ? good_windows_ + 1 : 0;
  if (good_windows_ >= grow_after_ && depth_ < c_.max_depth) {
    ++stats_.grows;
    probing_ = true;
    good_windows_ = 0;
    set_depth(std::min(c_.max_depth, depth_ + std::max(1u, depth_ / 8)), now);
  } else {
    ratios_.clear();  // a new window at the same depth
    misses_ = 0;
    smallest_miss_ = std::numeric_limits<double>::infinity();
  }
}

void QosAdmission::set_depth(unsigned d, Millis now) {
  depth_ = d;
  changed_ms_ = now;
  ratios_.clear();
  misses_ = 0;
  smallest_miss_ = std::numeric_limits<double>::infinity();
  stats_.depth = depth_;
  stats_.min_depth_seen = std::min(stats_.min_depth_seen, depth_);
}

}  // namespace disksched
