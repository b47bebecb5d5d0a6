// Live head tracking (Huang & Chiueh, "Implementation of a rotation latency sensitive
// disk scheduler", sec. 3): no disk tells the host where its head is, so predict it in
// software from the last completion's time and LBA plus the geometry, and re-anchor the
// prediction at every completion.
//
// The tracker sees the device only from outside, as the daemon does: when a request was
// dispatched and when its completion was observed. Between the two lie costs the model
// cannot see (waking the worker, the call into the plugin or the driver, the completion
// report travelling back). Huang & Chiueh fold them into one empirical value, delta:
// here the time from the moment a request is dispatched to an idle device until the
// device starts it, counted so that the platter is taken to be at the end angle of the
// last transfer at the observed completion time (so delta also absorbs the completion
// path). With delta right, a request dispatched at D from an idle device is predicted to
// complete at D + delta + service(head at D + delta), exactly when the model is exact.
// calibrate_delta() finds delta from observed completions.
//
// Re-anchoring at every completion fixes the platter's phase, not its period: a profile
// whose period is 0.2 % off (an extraction within 0.1 %, a spindle within its
// tolerance, a drifting one) mispredicts by 0.002 rotations per rotation since the
// anchor, a sector of the HP 97560 every 7 rotations, and the median anchor below lags
// a few completions. So the tracker also refines the period from completions
// (RotationEstimator: robust line through the implied phases, late reports rejected,
// adopted only when precise and within `max_period_change` of the profile's) and
// anchors the phase relative to the refined period. Samples record the period they
// were predicted with, so calibrate_delta replays them exactly.
//
// The period and the global phase are not all: a profile's track and cylinder skews are
// an average (an extraction within a sector, a zone whose skew differs, a remapped or
// reformatted track), and on a track whose sector 0 sits elsewhere every request is
// mispredicted by the same amount however well the platter is tracked. So each
// completion's implied phase is also compared with the global one, the difference is
// attributed to the track of the transfer's last sector (the one whose end the
// completion marks), and a track whose last few differences agree that it is off is
// turned by their median (TrackPhaseRefiner). A late report disagrees with the ones
// before it and moves nothing.
//
// All times are the caller's clock in model milliseconds (the daemon divides real time
// by its timescale); the tracker never reads a clock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/drive_cache.hpp"
#include "predictor/head_source.hpp"
#include "predictor/rotation_estimator.hpp"

namespace disksched {

// One observed request that started on an idle device: enough to recompute its
// prediction for any delta.
struct TrackerSample {
  Millis dispatch_ms = 0.0;
  Millis complete_ms = 0.0;
  // Position at dispatch (time_ms not used), with the spin the tracker predicted with
  // (not given before the first anchor).
  HeadState from;
  Op op = Op::Read;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  // A drive with a buffer (the profile's cache): its service depends on the buffer's
  // state, which the model alone cannot replay. But a miss's prediction moves with delta
  // only through its rotational wait (a later start waits that much less, until the
  // sector is missed and it waits a rotation more), so the sample keeps what it was
  // predicted with and calibrate_delta shifts that wait.
  struct Shifted {
    Millis delta_ms = 0.0;     // the delta it was predicted with
    Millis service_ms = 0.0;   // the drive's service from D + delta_ms
    Millis rotation_ms = 0.0;  // ... of which waiting for the platter, < period_ms
    Millis period_ms = 0.0;
  };
  std::optional<Shifted> shifted;
};

// Learns which tracks sit at another angle than the model says. Fed, per completion, the
// track of its transfer's last sector and the residual: the phase the completion implies
// minus the platter's global phase (signed rotations, (-0.5, 0.5]; on a track the model
// has right only timing noise and late reports). When `agree` of a track's last `history`
// residuals lie within `spread_sectors` of each other and their median is further than
// `min_sectors` from 0, the track's angle is off by that median: observe() returns the
// correction (minus the median) and forgets the track's residuals. A late report lands
// away from the others (late reports scatter: how late is random) and is outvoted. At
// most `max_tracks` tracks keep residuals; the least recently observed one is dropped
// for a new one.
class TrackPhaseRefiner {
 public:
  static constexpr std::size_t kMaxAgree = 8;
  struct Options {
    std::size_t agree = 4;
    std::size_t history = 6;  // agree <= history <= kMaxAgree
    double spread_sectors = 0.5;
    double min_sectors = 0.25;
    std::size_t max_tracks = 4096;
  };

  // `sector_rotations`: one sector as a fraction of a rotation (the unit of the options).
  TrackPhaseRefiner(double sector_rotations, Options options);

  // Returns the rotation to add to the track's angle, or nothing.
  std::optional<double> observe(std::int64_t cylinder, std::int32_t head, double residual);

  std::size_t tracks_kept() const { return live_; }
  // Tracks corrected at least once, and corrections in all.
  std::size_t tracks_adjusted() const { return adjusted_.size(); }
  std::uint64_t adjustments() const { return adjustments_; }

 private:
  using Key = std::uint64_t;
  static constexpr std::uint32_t kNone = UINT32_MAX;
  // Flat: records in one vector, linked in recency order by index, found through an
  // open-addressed table of indices. Every completion observes, most of them on a track
  // seen for the first time: no node to allocate, no pointer to chase but the record.
  struct Record {
    std::array<double, kMaxAgree> residual{};
    Key key = 0;
    std::uint32_t newer = kNone, older = kNone;  // recency links
    std::uint32_t count = 0;  // residuals held (at most history)
    std::uint32_t next = 0;   // where the next one goes
  };
  static Key key_of(std::int64_t cylinder, std::int32_t head) {
    return (static_cast<Key>(cylinder) << 32) | static_cast<std::uint32_t>(head);
  }
  std::size_t home_of(Key k) const {
    return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 32) & (table_.size() - 1);
  }
  std::uint32_t find(Key k) const;
  void insert(std::uint32_t i);  // records_[i].key into the table
  void erase(Key k);             // ... out of it
  void link_newest(std::uint32_t i);
  void unlink(std::uint32_t i);

  Options options_;
  double spread_, min_offset_;  // rotations
  std::vector<Record> records_;
  std::vector<std::uint32_t> free_;   // records_ indices not in use
  std::vector<std::uint32_t> table_;  // record index + 1, 0: empty; a power of two
  std::size_t live_ = 0;
  std::uint32_t newest_ = kNone, oldest_ = kNone;
  std::unordered_set<Key> adjusted_;
  std::uint64_t adjustments_ = 0;
};

class HeadTracker final : public HeadSource {
 public:
  struct Options {
    Millis delta_ms = 0.0;       // starting value of delta
    std::size_t window = 128;    // calibration samples kept (newest)
    // The platter's phase is re-estimated at every completion as the circular median of
    // the phases the last `anchor_window` completions imply. 1 is Huang & Chiueh's plain
    // re-anchoring; more keeps one late completion report (a busy host, a device that
    // answers late) from moving the predicted angle of every later request.
    std::size_t anchor_window = 7;
    // Refine the rotation period from completions (rotating models only). Off: the
    // profile's period is taken as exact and only the phase is re-anchored (the period
    // is still estimated, for period_estimator(), but not used).
    bool refine_period = true;
    std::size_t period_window = 512;   // completions the period is fitted over (newest)
    // Run the period's refit inside completed() (the simulator, tests: no thread). Off:
    // completed() only marks it due (period_fit_due()); the owner fits a snapshot
    // elsewhere (period_snapshot().fitted()) and hands it back (adopt_period_fit()).
    bool fit_period_inline = true;
    double max_period_change = 0.01;   // never further than this from the profile (±1 %)
    double reject_sectors = 1.5;       // a completion further than this from the fit is
                                       // not used (outermost zone's sectors)
    // Refine each track's phase from completions (rotating models only; see
    // TrackPhaseRefiner: sectors are the outermost zone's). Off: the profile's track
    // angles (skews or measured phases) are taken as exact.
    bool refine_track_phase = true;
    std::size_t track_agree = 4;         // residuals that must agree before a track turns
    std::size_t track_history = 6;       // ... of the track's last this many
    double track_spread_sectors = 0.5;   // ... within this of each other
    double track_min_sectors = 0.25;     // ... and off by more than this
    std::size_t track_records = 4096;    // tracks whose residuals are kept
  };

  // The tracker never changes `model`: what it learns (the platter's spin, track angles)
  // is its rotation state, passed with every head state it predicts (HeadState::spin)
  // and to the model's calls that need track angles.
  HeadTracker(const DeviceModel& model, Options options);

  // The head state the device would start a request from if one were dispatched at
  // `now`: after everything in flight, and no earlier than now + delta.
  HeadState predict(Millis now) const override;

  // Request `id` was dispatched at `now`. Returns the prediction (kept until completion).
  // With a profile's cache the tracker keeps the buffer's state as it predicts it, and a
  // predicted hit is costed as one.
  // `stops`: blocks read (one sector each, by the same worker, just before the request)
  // to move the mechanism first, as SCAN's trip to the edge; the prediction includes
  // them, and such a request is no calibration sample.
  const Prediction& dispatched(std::uint64_t id, Millis now, Op op, std::uint64_t offset,
                               std::uint32_t length,
                               std::span<const std::uint64_t> stops = {}) override;

  // Request `id`'s completion was observed at `now`. When `ok`, the head is re-anchored
  // there (a failed request says nothing certain about where the head went). Returns the
  // prediction made at dispatch. Throws std::invalid_argument for an unknown id.
  const Prediction& completed(std::uint64_t id, Millis now, bool ok) override;

  // What the tracker has learnt so far: the spin (not given until the first anchor) and
  // the tracks whose angle it corrected. Replaced, never changed in place, at completions.
  const RotationState& rotation() const { return state_; }
  // The tracks turned by the last completed() call (each one's Locations are stale).
  using Track = TurnedTrack;
  std::span<const TurnedTrack> turned() const override { return turned_; }
  const TrackAngles* learnt_tracks() const override { return state_.learnt_tracks(); }
  bool knows_hits() const override { return drive_.has_value(); }
  // Times the drive's buffer model was restarted because a completion came a quarter
  // rotation or more before its prediction (see completed()).
  std::uint64_t drive_resyncs() const { return drive_resyncs_; }
  // Whether the device has been seen acknowledging writes from a volatile write buffer
  // the profile does not describe (diskemu write-cache=, a drive's cache on): writes
  // complete long before their media could. Such writes are then predicted as taken into
  // the buffer, leaving the head where it was; the destages that move it later are not
  // seen from the host, so the head is still predicted where the last read left it.
  bool writes_buffered() const { return writes_buffered_; }
  bool hits(Millis now, std::uint64_t offset, std::uint32_t length) const override;

  Millis delta_ms() const { return delta_ms_; }
  void set_delta_ms(Millis d);

  std::size_t in_flight() const { return flight_.size(); }
  // Calibration samples, oldest first, and how many were ever recorded.
  std::vector<TrackerSample> samples() const { return {samples_.begin(), samples_.end()}; }
  std::uint64_t samples_recorded() const { return samples_recorded_; }

  const DeviceModel& model() const { return model_; }

  // Rotation period the predictions use, and the profile's (0 without rotation).
  Millis period_ms() const { return state_.spin.given() ? state_.spin.period_ms : nominal_period_ms_; }
  Millis nominal_period_ms() const { return nominal_period_ms_; }
  // The period estimator (null when the model does not rotate).
  const RotationEstimator* period_estimator() const {
    return estimator_.has_value() ? &*estimator_ : nullptr;
  }
  // With Options::fit_period_inline off: whether a period refit is waiting, a copy of the
  // estimator to fit (on any thread), and the fit handed back; the period it adopts is
  // used from the next completion on.
  bool period_fit_due() const { return estimator_ && estimator_->refit_due(); }
  RotationEstimator period_snapshot() const { return *estimator_; }
  bool adopt_period_fit(const RotationEstimator& fitted) { return estimator_->adopt(fitted); }
  // Use the estimated period from the next completion on (true), or the profile's.
  void set_refine_period(bool on) { options_.refine_period = on; }
  bool refine_period() const { return options_.refine_period; }
  // Per-track phase refinement (null when the model does not rotate); turning it off
  // keeps the tracks already corrected.
  const TrackPhaseRefiner* track_refiner() const {
    return refiner_.has_value() ? &*refiner_ : nullptr;
  }
  void set_refine_track_phase(bool on) { options_.refine_track_phase = on; }
  bool refine_track_phase() const { return options_.refine_track_phase; }
  // Tracks whose phase was corrected from completions, and corrections in all.
  std::size_t tracks_rephased() const { return refiner_ ? refiner_->tracks_adjusted() : 0; }
  std::uint64_t track_phase_adjustments() const { return refiner_ ? refiner_->adjustments() : 0; }

 private:
  struct InFlight {
    Prediction pred;
    TrackerSample sample;
    std::uint64_t order = 0;
    bool travelled = false;  // stops were read first: not a one-request sample
    // A drive with a cache: whether the completion tells where the platter is (not a
    // hit, not a write acknowledged from the buffer), and how long after the request's
    // last sector passed under the head it is predicted.
    bool anchors = true;
    Millis after_media_ms = 0.0;
    bool mechanism_free = true;  // ... and whether nothing held the mechanism at its start
    // A write on the platter alone: its mechanical time (seek, rotation, transfer), and
    // whether it was predicted as taken into a write buffer.
    Millis media_ms = 0.0;
    bool buffered = false;
  };
  // Consecutive writes that completed before their media could (or after): after
  // kBufferedEvidence of them, writes_buffered_ turns on (off).
  static constexpr std::uint32_t kBufferedEvidence = 4;
  std::uint32_t fast_writes_ = 0, slow_writes_ = 0;
  bool writes_buffered_ = false;

  // The model's service with the tracks learnt so far.
  Cost service(const HeadState& from, Op op, std::uint64_t offset, std::uint32_t length) const;

  const DeviceModel& model_;
  // The drive's controller and buffer as the tracker predicts them (null: the platter
  // alone): fed every request dispatched, so a predicted hit costs what a hit costs.
  std::optional<DriveCache> drive_;
  // A completion this much of a rotation before its prediction restarts drive_.
  static constexpr double kDriveLagRotations = 0.25;
  std::uint64_t drive_resyncs_ = 0;
  Options options_;
  Millis delta_ms_;
  HeadState position_;            // after the last completion (time not used)
  RotationState state_;
  std::vector<Track> turned_;
  // In flight, by id: a few (the filter's depth), so a flat vector searched from the
  // back (the newest) allocates nothing per request, as a map's nodes did.
  std::vector<std::pair<std::uint64_t, InFlight>> flight_;
  Prediction completed_;  // what the last completed() returned
  // Where `id` is in flight_, or flight_.size().
  std::size_t flight_index(std::uint64_t id) const;
  std::uint64_t next_order_ = 0;
  // The most recently dispatched request still in flight (predict() chains after it).
  std::uint64_t last_id_ = 0;
  std::deque<TrackerSample> samples_;
  std::uint64_t samples_recorded_ = 0;
  struct Observation {
    Millis t;      // the platter was at `angle` at t
    double angle;
    std::int64_t cylinder;  // ... the end of a transfer on this track
    std::int32_t head;
    double phase;           // the phase it implies under phase_period (0: not yet found)
    Millis phase_period;
  };
  // Re-anchors the spin at the circular median of the phases recent_ implies under
  // `period`; returns that phase.
  double anchor_at_median(Millis t, Millis period);

  std::deque<Observation> recent_;  // the last anchor_window completions
  std::vector<double> phases_;      // anchor_at_median's, kept to spare an allocation
  Millis nominal_period_ms_ = 0.0;
  std::optional<RotationEstimator> estimator_;
  std::optional<TrackPhaseRefiner> refiner_;
};

// Result of calibrating delta.
struct Calibration {
  Millis delta_ms = 0.0;
  double within = 0.0;        // fraction of samples predicted within the tolerance
  std::size_t samples = 0;
};

struct CalibrationOptions {
  Millis tolerance_ms = 0.0;  // a prediction is right within this (0: one sector time)
  Millis max_delta_ms = 0.0;  // largest delta tried (0: two rotations, or 50 ms)
};

// Finds the delta that predicts the most samples within the tolerance. A rotating disk's
// prediction is piecewise constant in delta (a larger delta shortens the rotational wait
// by as much until the target sector is missed), so the best deltas form a plateau: the
// middle of the widest best plateau is returned, the value furthest from a miss. Without
// rotation the prediction is delta plus a fixed cost and the median residual is returned.
// `learnt`: the track angles to replay the samples on (the tracker's, or none).
// Empty samples give delta 0 and within 0.
Calibration calibrate_delta(const DeviceModel& model, const std::vector<TrackerSample>& samples,
                            CalibrationOptions options = {}, const TrackAngles* learnt = nullptr);

}  // namespace disksched
