// Admission to a drive that queues: how many requests the drive may hold, and which
// class takes a free place (ARCHITECTURE.md, "Latency targets over a drive that queues").
//
// A drive with its own queue (NCQ, 32 deep) orders what it holds by its own policy, so a
// request's latency is mostly the work queued beside it in the drive. The host keeps a
// foreground latency target by bounding that work: the allowed depth shrinks when the
// foreground's observed quantile exceeds its target and grows back while it stays under
// (additive increase, a decrease by how far over the target, as Linux iocost's vrate
// and ZFS's per-class min/max active commands do). Which request takes a place:
//   - a background request (time-noncritical) that has waited its bound goes first,
//     taking turns with the foreground (one each) when it keeps coming: nothing waits
//     unboundedly, and a flood of overdue requests does not starve the foreground
//     (never beyond the depth: beside a foreground request in the drive, a drive's
//     own shortest-positioning order serves a sequential scrub first, up to its age limit);
//   - else the foreground (time-critical, time-limited);
//   - background takes the room the foreground leaves: only while no foreground request
//     waits or is at the drive (beside one, the drive would serve it first), and, while
//     foreground requests wait, its share of the dispatches (bg-share, a credit earned
//     per foreground one); never more than bg-depth background requests at the drive
//     (overdue ones aside).
// Everything is counted by completions and passed time: no clock, so it runs the same in
// virtual time and live.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched {

struct QosConfig {
  Millis target_ms = 50.0;          // time-critical: the quantile's target
  Millis limited_target_ms = 0.0;   // time-limited (0: each request's own limit, else target_ms)
  double quantile = 0.99;           // of the response time, per window
  std::size_t window = 100;         // foreground completions per window
  unsigned min_depth = 1;
  unsigned max_depth = 32;
  double bg_share = 0.0;            // of the dispatches, background takes while foreground waits
  Millis bg_wait_ms = 1000.0;       // background's bounded wait (0: none, strict priority)
  // The most background requests the drive holds at once (0: up to the depth). Beside a
  // foreground request the drive's own shortest-positioning order serves every
  // sequential background read it holds first: each is a wait the foreground cannot
  // avoid. A scrub streams as fast at 1 or 2 as at 32 (the drive reads ahead). Overdue
  // requests (bg_wait_ms) go beyond it.
  unsigned bg_depth = 1;
  // false: no depth control and no bound, foreground first at max_depth (the ablation
  // the tests compare with)
  bool control = true;
};

// What a class saw, since the start.
struct QosClassStats {
  std::uint64_t admitted = 0;
  std::uint64_t completed = 0;
  std::uint64_t overdue = 0;        // admitted because it had waited its bound
  Millis max_wait_ms = 0.0;         // arrival -> admission to the drive
  Millis max_response_ms = 0.0;
  std::uint64_t over_target = 0;    // completions over the class's target
};

struct QosStats {
  std::array<QosClassStats, 3> cls{};  // by IoClass
  unsigned depth = 0;                  // allowed now
  unsigned min_depth_seen = 0;
  std::uint64_t shrinks = 0, grows = 0;
};

class QosAdmission {
 public:
  // Throws std::invalid_argument for an inconsistent configuration (min above max,
  // a zero window, a quantile outside (0, 1)).
  explicit QosAdmission(QosConfig c);

  enum class Grant { None, Foreground, Background };

  // Which class takes the next place at the drive, given what waits (`fg_waiting`,
  // `bg_waiting`) and, for the background, when its oldest waiting request arrived.
  // `now` is the time of the choice.
  Grant next(Millis now, bool fg_waiting, bool bg_waiting, Millis oldest_bg_arrival) const;

  // A request of class `c` that arrived at `arrival` went to the drive at `now`.
  void admitted(IoClass c, Millis arrival, Millis now);
  // ... and completed at `now` (it went to the drive at `dispatched`): its response time
  // adapts the depth, when it went there after the last change of depth. `limit_ms`: a
  // time-limited request's own limit (Request::limit_ms; 0: none).
  void completed(IoClass c, Millis arrival, Millis dispatched, Millis now, Millis limit_ms = 0);
  // A request already at the drive when this controller took over (a switch).
  void adopt(IoClass c);

  static bool foreground(IoClass c) { return c != IoClass::TimeNoncritical; }
  unsigned depth() const { return depth_; }
  unsigned in_flight() const { return fg_in_flight_ + bg_in_flight_; }
  const QosStats& stats() const { return stats_; }
  const QosConfig& config() const { return c_; }

 private:
  Millis target_of(IoClass c, Millis limit_ms) const;
  // A foreground response time: counts it in the window; shrinks at once when the
  // window already holds more misses than the quantile allows, grows (or keeps) when
  // the window is full.
  void observe(Millis target_ms, Millis response_ms, Millis now);
  void set_depth(unsigned d, Millis now);

  QosConfig c_;
  unsigned depth_;
  unsigned fg_in_flight_ = 0, bg_in_flight_ = 0;
  // The window: response / target ratios of foreground completions since the last
  // change of depth, and how many exceeded 1.
  std::vector<double> ratios_;
  std::size_t misses_ = 0;
  double smallest_miss_ = std::numeric_limits<double>::infinity();  // of the misses' ratios
  std::size_t allowed_misses_ = 0;
  // The last change of depth (at first: before any time, so every request counts).
  Millis changed_ms_ = std::numeric_limits<Millis>::lowest();
  bool last_overdue_ = false;  // the last admission was an overdue background request
  // Growing: after grow_after_ windows in a row under the target's 80 %; a grow that is
  // cut before a whole window (probing_) doubles it.
  unsigned grow_after_ = 1, good_windows_ = 0;
  bool probing_ = false;
  double bg_credit_ = 0.0;  // bg-share's: background dispatches owed (up to 2)
  QosStats stats_;
};

}  // namespace disksched
