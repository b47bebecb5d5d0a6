#include "predictor/head_tracker.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace disksched {
namespace {

struct Extent {
  std::uint64_t lba = 0;
  std::uint32_t sectors = 0;
};

Extent extent_of(const DeviceModel& m, std::uint64_t offset, std::uint32_t length) {
  const std::uint32_t sb = m.sector_bytes();
  Extent e;
  e.lba = offset / sb;
  e.sectors = static_cast<std::uint32_t>((offset + length + sb - 1) / sb - e.lba);
  return e;
}

// Ops whose transfer passes the media, so the platter angle at their end is known.
bool moves_media(Op op) { return op == Op::Read || op == Op::Write || op == Op::Zero; }

double frac(double x) { return x - std::floor(x); }

// Distance between two angles in [0, 1) on the circle, in rotations [0, 0.5]. Their
// difference lies in (-1, 1), so no floor (a library call on plain x86-64) and no
// branch (the median below compares every pair of angles, in random order).
double circular_distance(double a, double b) {
  const double d = std::fabs(a - b);
  return std::min(d, 1.0 - d);
}

// The element with the least total circular distance to the others (the first of
// equals). Each pair's distance is found once and added to both ends' sums, which
// still add their terms in index order: the same sums as a row-by-row loop, in half
// the distances.
double circular_median(const std::vector<double>& v) {
  const std::size_t n = v.size();
  double small[16];
  std::vector<double> large;
  double* cost = small;
  if (n > 16) {
    large.assign(n, 0.0);
    cost = large.data();
  } else {
    std::fill(small, small + n, 0.0);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double d = circular_distance(v[i], v[j]);
      cost[i] += d;
      cost[j] += d;
    }
  double best = v.front(), best_cost = INFINITY;
  for (std::size_t i = 0; i < n; ++i)
    if (cost[i] < best_cost) {
      best_cost = cost[i];
      best = v[i];
    }
  return best;
}

// a - b on the circle, in rotations (-0.5, 0.5].
double signed_difference(double a, double b) {
  const double d = a - b;
  return d - std::round(d);
}

}  // namespace

TrackPhaseRefiner::TrackPhaseRefiner(double sector_rotations, Options options)
    : options_(options) {
  if (!(sector_rotations > 0 && sector_rotations < 1))
    throw std::invalid_argument("track phase refiner: a sector must be in (0, 1) rotations");
  if (options_.agree < 2 || options_.agree > kMaxAgree)
    throw std::invalid_argument("track phase refiner: agree must be 2 to " +
                                std::to_string(kMaxAgree) + ", not " +
                                std::to_string(options_.agree));
  if (options_.history < options_.agree || options_.history > kMaxAgree)
    throw std::invalid_argument("track phase refiner: history must be agree (" +
                                std::to_string(options_.agree) + ") to " +
                                std::to_string(kMaxAgree) + ", not " +
                                std::to_string(options_.history));
  if (!(options_.spread_sectors > 0))
    throw std::invalid_argument("track phase refiner: spread_sectors must be > 0");
  if (!(options_.min_sectors >= 0))
    throw std::invalid_argument("track phase refiner: min_sectors must be >= 0");
  if (options_.max_tracks == 0) options_.max_tracks = 1;
  spread_ = options_.spread_sectors * sector_rotations;
  min_offset_ = options_.min_sectors * sector_rotations;
}

std::uint32_t TrackPhaseRefiner::find(Key k) const {
  if (table_.empty()) return kNone;
  for (std::size_t j = home_of(k);; j = (j + 1) & (table_.size() - 1)) {
    const std::uint32_t e = table_[j];
    if (e == 0) return kNone;
    if (records_[e - 1].key == k) return e - 1;
  }
}

void TrackPhaseRefiner::insert(std::uint32_t i) {
  if (2 * (live_ + 1) > table_.size()) {  // at most half full
    std::vector<std::uint32_t> old(std::max<std::size_t>(16, 2 * table_.size()), 0);
    old.swap(table_);
    for (const std::uint32_t e : old)
      if (e != 0) {
        std::size_t j = home_of(records_[e - 1].key);
        while (table_[j] != 0) j = (j + 1) & (table_.size() - 1);
        table_[j] = e;
      }
  }
  std::size_t j = home_of(records_[i].key);
  while (table_[j] != 0) j = (j + 1) & (table_.size() - 1);
  table_[j] = i + 1;
}

void TrackPhaseRefiner::erase(Key k) {
  const std::size_t mask = table_.size() - 1;
  std::size_t hole = home_of(k);
  while (records_[table_[hole] - 1].key != k) hole = (hole + 1) & mask;
  table_[hole] = 0;
  // Linear probing: pull back each later entry of the run that may no longer be found.
  for (std::size_t j = (hole + 1) & mask; table_[j] != 0; j = (j + 1) & mask) {
    const std::size_t home = home_of(records_[table_[j] - 1].key);
    const bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (stays) continue;
    table_[hole] = table_[j];
    table_[j] = 0;
    hole = j;
  }
}

void TrackPhaseRefiner::link_newest(std::uint32_t i) {
  records_[i].older = newest_;
  records_[i].newer = kNone;
  if (newest_ != kNone) records_[newest_].newer = i;
  newest_ = i;
  if (oldest_ == kNone) oldest_ = i;
}

void TrackPhaseRefiner::unlink(std::uint32_t i) {
  Record& r = records_[i];
  (r.newer != kNone ? records_[r.newer].older : newest_) = r.older;
  (r.older != kNone ? records_[r.older].newer : oldest_) = r.newer;
}

std::optional<double> TrackPhaseRefiner::observe(std::int64_t cylinder, std::int32_t head,
                                                 double residual) {
  residual -= std::round(residual);
  const Key k = key_of(cylinder, head);
  std::uint32_t at = find(k);
  if (at == kNone) {
    if (live_ >= options_.max_tracks) {
      // The least recently observed track's record takes the new one.
      at = oldest_;
      unlink(at);
      erase(records_[at].key);
      --live_;
    } else if (!free_.empty()) {
      at = free_.back();
      free_.pop_back();
    } else {
      at = static_cast<std::uint32_t>(records_.size());
      records_.emplace_back();
    }
    records_[at] = Record{};
    records_[at].key = k;
    insert(at);
    ++live_;
  } else {
    unlink(at);
  }
  link_newest(at);
  Record& r = records_[at];
  r.residual[r.next] = residual;
  r.next = static_cast<std::uint32_t>((r.next + 1) % options_.history);
  if (r.count < options_.history) ++r.count;
  if (r.count < options_.agree) return std::nullopt;
  // The largest group within the spread: agreeing residuals lie within a sector of each
  // other, so unwrapped around any one of them they sort into a run.
  std::size_t best_n = 0;
  double best_median = 0.0;
  std::array<double, kMaxAgree> d{};
  for (std::size_t a = 0; a < r.count; ++a) {
    const double ref = r.residual[a];
    for (std::size_t i = 0; i < r.count; ++i) d[i] = signed_difference(r.residual[i], ref);
    std::sort(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(r.count));
    for (std::size_t lo = 0, hi = 0; lo < r.count; ++lo) {
      while (hi < r.count && d[hi] - d[lo] <= spread_) ++hi;
      const std::size_t n = hi - lo;
      if (n > best_n) {
        best_n = n;
        const double middle = n % 2 == 1 ? d[lo + n / 2] : 0.5 * (d[lo + n / 2 - 1] + d[lo + n / 2]);
        best_median = signed_difference(ref + middle, 0.0);
      }
    }
  }
  if (best_n < options_.agree) return std::nullopt;
  const double median = best_median;
  if (std::abs(median) <= min_offset_) return std::nullopt;
  unlink(at);
  erase(k);
  --live_;
  free_.push_back(at);
  adjusted_.insert(k);
  ++adjustments_;
  return -median;
}

HeadTracker::HeadTracker(const DeviceModel& model, Options options)
    : model_(model), options_(options), delta_ms_(options.delta_ms),
      position_(model.initial_state()) {
  if (const DriveParams* d = drive_params_of(model)) drive_.emplace(model, *d, position_);
  if (!(options.delta_ms >= 0.0)) throw std::invalid_argument("head tracker: delta must be >= 0");
  if (options_.window == 0) options_.window = 1;
  if (options_.anchor_window == 0) options_.anchor_window = 1;
  nominal_period_ms_ = model.rotation_ms();
  if (model.rotational() && nominal_period_ms_ > 0) {
    if (!(options_.max_period_change > 0 && options_.max_period_change < 0.5))
      throw std::invalid_argument("head tracker: max_period_change must be in (0, 0.5)");
    if (!(options_.reject_sectors > 0))
      throw std::invalid_argument("head tracker: reject_sectors must be > 0");
    RotationEstimator::Options e;
    e.nominal_period_ms = nominal_period_ms_;
    e.window = options_.period_window;
    // Sector times are of the outermost (shortest-sector-time) zone: the tightest.
    e.reject_rotations =
        std::min(0.25, options_.reject_sectors * model.sector_time_ms() / nominal_period_ms_);
    e.max_relative_change = options_.max_period_change;
    e.defer_refit = !options_.fit_period_inline;
    estimator_.emplace(e);
    const double sector = model.sector_time_ms() / nominal_period_ms_;
    if (sector > 0 && sector < 1) {
      TrackPhaseRefiner::Options r;
      r.agree = options_.track_agree;
      r.history = options_.track_history;
      r.spread_sectors = options_.track_spread_sectors;
      r.min_sectors = options_.track_min_sectors;
      r.max_tracks = options_.track_records;
      refiner_.emplace(sector, r);
    }
  }
}

double HeadTracker::anchor_at_median(Millis t, Millis period) {
  // The phases recent completions imply under the (refined) period; their circular
  // median is robust to a late report.
  std::vector<double>& phases = phases_;
  phases.clear();
  for (Observation& o : recent_) {
    // Each observation's phase is found once per period, not at every completion.
    if (o.phase_period != period) {
      o.phase = frac(o.angle - o.t / period);
      o.phase_period = period;
    }
    phases.push_back(o.phase);
  }
  const double phase = circular_median(phases);
  state_.spin = Spin::anchored(t, frac(phase + t / period), period);
  return phase;
}

void HeadTracker::set_delta_ms(Millis d) {
  if (!(d >= 0.0)) throw std::invalid_argument("head tracker: delta must be >= 0");
  delta_ms_ = d;
}

Cost HeadTracker::service(const HeadState& from, Op op, std::uint64_t offset,
                          std::uint32_t length) const {
  return state_.tracks ? model_.service(from, op, offset, length, *state_.tracks)
                       : model_.service(from, op, offset, length);
}

bool HeadTracker::hits(Millis now, std::uint64_t offset, std::uint32_t length) const {
  if (!drive_ || length == 0) return false;
  const std::uint32_t sb = model_.sector_bytes();
  const std::uint64_t first = offset / sb;
  return drive_->holds(predict(now).time_ms, first,
                       static_cast<std::uint32_t>((offset + length + sb - 1) / sb - first));
}

HeadState HeadTracker::predict(Millis now) const {
  HeadState s = position_;
  s.time_ms = now + delta_ms_;
  s.spin = state_.spin;
  if (!flight_.empty()) {
    // The device serves what it holds first: start after the last one dispatched.
    const Prediction& last = flight_[flight_index(last_id_)].second.pred;
    const HeadState& end = last.cost.end;
    s = end;
    s.time_ms = std::max(now + delta_ms_, last.completion_ms());
    s.spin = state_.spin;
  }
  return s;
}

std::size_t HeadTracker::flight_index(std::uint64_t id) const {
  for (std::size_t i = flight_.size(); i-- > 0;)
    if (flight_[i].first == id) return i;
  return flight_.size();
}

const Prediction& HeadTracker::dispatched(std::uint64_t id, Millis now, Op op,
                                          std::uint64_t offset, std::uint32_t length,
                                          std::span<const std::uint64_t> stops) {
  if (flight_index(id) != flight_.size())
    throw std::invalid_argument("head tracker: request " + std::to_string(id) +
                                " dispatched twice");
  InFlight f;
  f.pred.dispatch_ms = now;
  f.pred.idle_start = flight_.empty();
  f.pred.from = predict(now);
  const std::uint32_t sb = model_.sector_bytes();
  for (const std::uint64_t lba : stops) {
    // The worker issues the request after the stop's completion reaches it: one delta.
    const Cost stop = drive_ ? drive_->serve(f.pred.from.time_ms, Op::Read, lba, 1, false,
                                             state_.spin).cost
                             : service(f.pred.from, Op::Read, lba * sb, sb);
    f.pred.from = stop.end;
    f.pred.from.time_ms += delta_ms_;
  }
  if (drive_) {
    const std::uint64_t first = offset / sb;
    const std::uint64_t end = length > 0 ? (offset + length + sb - 1) / sb : first;
    // A command that first waits for a destage starts when it ends, not at D + delta:
    // no calibration sample.
    f.mechanism_free = drive_->mechanism_busy_until() <= f.pred.from.time_ms;
    const DriveResult r = drive_->serve(f.pred.from.time_ms, op, first,
                                        static_cast<std::uint32_t>(end - first), false,
                                        state_.spin);
    f.pred.cost = r.cost;
    f.anchors = r.media_end_ms >= 0.0;
    f.after_media_ms = r.cost.end.time_ms - r.media_end_ms;
  } else {
    f.pred.cost = service(f.pred.from, op, offset, length);
    if (op == Op::Write) {
      f.media_ms = f.pred.cost.seek_ms + f.pred.cost.rotation_ms + f.pred.cost.transfer_ms;
      if (writes_buffered_) {
        // Taken into the buffer: the command's overhead only, and the head stays.
        Cost c;
        c.overhead_ms = f.pred.cost.overhead_ms;
        c.completion_ms = f.pred.cost.completion_ms;
        c.end = f.pred.from;
        c.end.time_ms = f.pred.from.time_ms + c.service_ms();
        f.pred.cost = c;
        f.buffered = true;
        f.anchors = false;
      }
    }
  }
  f.sample.dispatch_ms = now;
  f.sample.from = f.pred.idle_start ? position_ : f.pred.from;
  f.sample.from.spin = state_.spin;
  f.sample.op = op;
  f.sample.offset = offset;
  f.sample.length = length;
  f.order = next_order_++;
  f.travelled = !stops.empty();
  last_id_ = id;
  flight_.emplace_back(id, f);
  return flight_.back().second.pred;
}

const Prediction& HeadTracker::completed(std::uint64_t id, Millis now, bool ok) {
  const std::size_t at = flight_index(id);
  if (at == flight_.size())
    throw std::invalid_argument("head tracker: completion of unknown request " +
                                std::to_string(id));
  InFlight f = flight_[at].second;
  if (at + 1 != flight_.size()) flight_[at] = std::move(flight_.back());
  flight_.pop_back();
  turned_.clear();
  // A write on the platter alone that completed in less than half its mechanical time
  // was taken into a buffer; one that took at least that went to the media.
  bool from_buffer = f.buffered;
  if (ok && !drive_ && f.sample.op == Op::Write && f.media_ms > 0.0) {
    const bool fast = now - f.pred.from.time_ms < f.pred.cost.overhead_ms + 0.5 * f.media_ms;
    fast_writes_ = fast ? fast_writes_ + 1 : 0;
    slow_writes_ = fast ? 0 : slow_writes_ + 1;
    if (fast_writes_ >= kBufferedEvidence) writes_buffered_ = true;
    if (slow_writes_ >= kBufferedEvidence) writes_buffered_ = false;
    from_buffer = fast;
    f.anchors = f.anchors && !fast;
  }
  if (ok) {
    // The head stays where this request left it (or where the last one dispatched
    // will leave it: predict() chains after that one while any is in flight); a write
    // taken into a buffer left it where it was.
    if (!from_buffer) position_ = f.pred.cost.end;
    if (drive_ && f.anchors && flight_.empty() &&
        f.pred.completion_ms() - now > kDriveLagRotations * nominal_period_ms_) {
      // The drive did it a rotation sooner than predicted (it caught a sector the
      // prediction missed). The buffer's timeline still has its mechanism busy until
      // then, and every later prediction would start from there: at each it misses the
      // sector again, but for requests whose wait is shorter than the lag, so the error
      // runs on for a streak of requests. Start the buffer afresh where the head is now.
      HeadState at = position_;
      at.time_ms = now;
      const DriveParams params = drive_->params();  // emplace() ends the old one first
      drive_.emplace(model_, params, at);
      ++drive_resyncs_;
    }
    if (moves_media(f.sample.op) && f.sample.length > 0 && model_.rotational() && f.anchors) {
      const Extent e = extent_of(model_, f.sample.offset, f.sample.length);
      // The platter was at the transfer's end angle when the completion left the
      // device: that fixes its phase (angle at time 0) for a given period.
      const Millis t = now - (drive_ ? f.after_media_ms : f.pred.cost.completion_ms);
      const double angle = state_.tracks ? model_.end_angle(e.lba, e.sectors, *state_.tracks)
                                         : model_.end_angle(e.lba, e.sectors);
      Millis period = nominal_period_ms_;
      if (estimator_) {
        estimator_->add(t, angle);
        if (options_.refine_period) period = estimator_->period_ms();
      }
      const bool refine_track = refiner_.has_value() && options_.refine_track_phase;
      Observation o{t, angle, -1, -1, 0.0, 0.0};
      if (refine_track) {
        // The track whose end this completion marks: where the predicted transfer ended.
        o.cylinder = f.pred.cost.end.cylinder;
        o.head = f.pred.cost.end.head;
      }
      recent_.push_back(o);
      while (recent_.size() > options_.anchor_window) recent_.pop_front();
      const double phase = anchor_at_median(t, period);
      if (refine_track) {
        // How far this track's sector 0 is from where the model has it, as this
        // completion sees it (the model's angle minus the true one).
        const double residual = signed_difference(frac(angle - t / period), phase);
        if (const auto turn = refiner_->observe(o.cylinder, o.head, residual)) {
          auto tracks = state_.tracks ? std::make_shared<TrackAngles>(*state_.tracks)
                                      : std::make_shared<TrackAngles>();
          model_.turn_track(*tracks, o.cylinder, o.head, *turn);
          state_.tracks = std::move(tracks);
          turned_.push_back({o.cylinder, o.head});
          for (Observation& r : recent_)
            if (r.cylinder == o.cylinder && r.head == o.head) {
              r.angle += *turn;
              r.phase_period = 0.0;  // its phase moved
            }
          anchor_at_median(t, period);
        }
      }
    }
    // calibrate_delta replays samples on the platter alone; a drive's only when the
    // media served it (a miss), as a shifted rotational wait.
    if (f.pred.idle_start && !f.travelled && !from_buffer &&
        (!drive_ || (f.anchors && f.mechanism_free))) {
      if (drive_) {
        TrackerSample::Shifted x;
        x.delta_ms = delta_ms_;
        x.service_ms = f.pred.cost.service_ms();
        x.rotation_ms = f.pred.cost.rotation_ms;
        x.period_ms = state_.spin.given() ? state_.spin.period_ms : nominal_period_ms_;
        f.sample.shifted = x;
      }
      f.sample.complete_ms = now;
      samples_.push_back(f.sample);
      ++samples_recorded_;
      while (samples_.size() > options_.window) samples_.pop_front();
    }
  }
  if (!flight_.empty() && last_id_ == id) {
    // The newest dispatch completed before older ones: chain after the newest left.
    auto newest = std::max_element(flight_.begin(), flight_.end(), [](auto& a, auto& b) {
      return a.second.order < b.second.order;
    });
    last_id_ = newest->first;
  }
  completed_ = f.pred;
  return completed_;
}

Calibration calibrate_delta(const DeviceModel& model, const std::vector<TrackerSample>& samples,
                            CalibrationOptions options, const TrackAngles* learnt) {
  Calibration out;
  std::vector<const TrackerSample*> usable;
  for (const auto& s : samples)
    if (!model.rotational() || s.from.spin.given()) usable.push_back(&s);
  out.samples = usable.size();
  if (usable.empty()) return out;

  auto service_of = [&](const TrackerSample& s, Millis delta) {
    if (s.shifted && s.shifted->period_ms > 0) {
      const TrackerSample::Shifted& x = *s.shifted;
      Millis wait = x.rotation_ms - (delta - x.delta_ms);
      wait -= std::floor(wait / x.period_ms) * x.period_ms;
      return x.service_ms - x.rotation_ms + wait;
    }
    HeadState from = s.from;
    from.time_ms = s.dispatch_ms + delta;
    const Cost c = learnt ? model.service(from, s.op, s.offset, s.length, *learnt)
                          : model.service(from, s.op, s.offset, s.length);
    return c.service_ms();
  };

  if (!model.rotational()) {
    // Prediction = delta + a cost that does not depend on time: the median residual.
    const Millis tol = options.tolerance_ms > 0 ? options.tolerance_ms : 0.1;
    std::vector<Millis> residual;
    for (const auto* s : usable)
      residual.push_back((s->complete_ms - s->dispatch_ms) - service_of(*s, 0.0));
    std::vector<Millis> sorted = residual;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    out.delta_ms = std::max(0.0, sorted[sorted.size() / 2]);
    std::size_t hits = 0;
    for (Millis r : residual) hits += std::abs(r - out.delta_ms) <= tol;
    out.within = static_cast<double>(hits) / residual.size();
    return out;
  }

  const Millis tol = options.tolerance_ms > 0 ? options.tolerance_ms : model.sector_time_ms();
  const Millis max_delta =
      options.max_delta_ms > 0 ? options.max_delta_ms : 2.0 * model.rotation_ms();
  const Millis step = tol / 8.0;
  const std::size_t n = static_cast<std::size_t>(std::ceil(max_delta / step)) + 1;
  std::vector<std::size_t> hits(n, 0);
  for (const auto* s : usable) {
    const Millis actual = s->complete_ms - s->dispatch_ms;
    for (std::size_t i = 0; i < n; ++i) {
      const Millis delta = i * step;
      hits[i] += std::abs(delta + service_of(*s, delta) - actual) <= tol;
    }
  }
  const std::size_t best = *std::max_element(hits.begin(), hits.end());
  // The widest run of best candidates; its middle.
  std::size_t run_start = 0, best_start = 0, best_len = 0;
  for (std::size_t i = 0; i <= n; ++i) {
    if (i < n && hits[i] == best) {
      if (i == 0 || hits[i - 1] != best) run_start = i;
      continue;
    }
    if (i > 0 && hits[i - 1] == best && i - run_start > best_len) {
      best_len = i - run_start;
      best_start = run_start;
    }
  }
  out.delta_ms = (best_start + (best_len - 1) / 2.0) * step;
  out.within = static_cast<double>(best) / usable.size();
  return out;
}

}  // namespace disksched
