// The measuring instrument every extraction step uses: a rotating reference frame
// anchored on completions of one reference sector, phase reads, and reachability
// thresholds.
//
// Observable (reference notes §4.1): the completion time of a single-sector read is
// locked to the platter, so frac((t_complete - t_anchor) / T) — the completion
// *phase* — is a property of the sector alone, whatever the seek, overhead or issue
// jitter before it. A reach probe issues a read a controlled `slack` before the
// moment its sector's completion phase comes round; it "hits" when the drive still
// makes that revolution. The smallest slack that hits is the dead time (host and
// drive overheads) plus the move (seek / head switch) plus one sector's transfer.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <limits>
#include <string>
#include <vector>

#include "tools/extract/probe_target.hpp"

namespace disksched::extract {

struct ProberOptions {
  std::uint64_t reference_lba = 0;
  // Re-read the reference (and refit the period on the growing baseline) at least
  // this often, so that the frame never drifts by more than a small angle.
  Millis refresh_interval_ms = 3000.0;
  // Minimum time between a completion and a scheduled issue (host reaction time).
  Millis gap_ms = 0.05;
  // Roughly a revolution, when back-to-back reference reads are several revolutions
  // apart (a cache defeat reads far places between them); 0: they are one apart.
  Millis period_hint_ms = 0.0;
};

// A step could not time the device: too much host noise (as far as the probes can
// tell). The extraction adds the measured noise and what would fix it.
class TimingNoiseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Back-to-back reads of the reference sector came back far sooner than any platter
// turns: the drive's buffer answers them (or the device does not rotate).
class CacheAnswersError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PeriodEstimate {
  Millis period_ms = 0.0;
  Millis jitter_ms = 0.0;      // robust sigma of completion times about the fit
  std::size_t reads = 0;
  std::size_t rejected = 0;    // outliers (preemptions, lost revolutions)
  Millis baseline_ms = 0.0;    // time spanned by the reference reads used
  // Share of reference completions seen late (beyond the jitter), and of probes the
  // host flagged as preempted.
  double late_fraction = 0.0;
  double flagged_fraction = 0.0;
};

struct ReachSample {
  bool hit = false;
  Millis slack_ms = 0.0;  // the slack actually obtained
};

class Prober {
 public:
  Prober(ProbeTarget& target, ProberOptions options);

  ProbeTarget& target() { return target_; }
  // No probe is issued past `at` (the target's clock): TimingNoiseError names `why`.
  void stop_at(Millis at, std::string why) { stop_at_ = at, stop_why_ = std::move(why); }
  std::uint64_t reference_lba() const { return opt_.reference_lba; }

  // Back-to-back reads of the reference sector: first estimate of the rotation
  // period and of the completion jitter, and the anchor of the frame. Throws when
  // there is no rotation signal (a cache answering, a non-rotating device).
  PeriodEstimate measure_period(int reads);
  // The estimate refined by every reference read so far (long baseline).
  PeriodEstimate period_estimate() const;
  Millis period() const { return period_; }
  // Completion jitter in rotations (for choosing repeat counts).
  double phase_noise() const { return jitter_ / period_; }
  // Share of completions seen late (a busy host or a server that wakes late). Above
  // kNoisyLateFraction the probes adapt: phases are the mode of their reads (late ones
  // rejected), reach decisions need only one hit (a delay can only turn a hit into a
  // miss), and more reads are taken.
  double late_fraction() const { return late_fraction_; }
  bool noisy() const { return late_fraction_ > kNoisyLateFraction; }
  static constexpr double kNoisyLateFraction = 0.02;
  // Whether the host's preemption flag means something here: on a busy host without
  // real-time priority nearly every probe is flagged, and repeating them only costs.
  bool flags_trusted() const { return flags_trusted_; }

  // Phase (rotations, [0, 1)) of a time in the frame, and the first time at or after
  // `not_before` at which the frame reaches `phase`.
  double phase_of(Millis t) const;
  Millis next_time_at(double phase, Millis not_before) const;

  // Completion phase of a one-sector read of `lba`: the circular median of `repeats`
  // reads (0 = the current default), skipping probes flagged as disturbed.
  double phase(std::uint64_t lba, int repeats = 0, Op op = Op::Read);
  // One phase from several reads of a sector (phase's rule: the circular median, or on
  // a noisy host the earliest of the densest cluster).
  double combine_phases(const std::vector<double>& ph) const;
  void set_repeats(int n) { repeats_ = n < 1 ? 1 : n; }
  // Behind a cache defeat a re-read of a sector first pushes it out of the buffer (a
  // read for each of its segments): where completions do not scatter (jitter under a
  // tenth of the finest sector of a drive of today, 2.3 us) one read is as good as the
  // median of several, so a phase is read once (asked again, the completion of that
  // read is taken in the frame of the moment), and the reference once a refresh.
  bool one_read_suffices() const;
  // The phases of sectors about to be asked for, read now in the order the target
  // prefers (ProbeTarget::prefers_descending_reads) and kept as above; nothing where the
  // target has no preference or one read does not suffice.
  void prefetch(std::vector<std::uint64_t> lbas);
  int repeats() const { return repeats_; }

  // One reach probe: read `src`, then read `dst` `slack_ms` before the frame reaches
  // `dst_phase` (the measured completion phase of dst).
  // `op` is the operation of the dst probe (src is always a read).
  ReachSample reach(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis slack_ms,
                    Op op = Op::Read);
  // The smallest slack that hits, by bisection to `resolution_ms` with a majority of
  // `votes` probes per point, starting from the bracket [lo, hi] (widened as needed).
  // On a noisy host: one probe per point, a hit is proof, and only the final lower
  // bound's miss is confirmed (misses_to_confirm in a row, or `confirm` when more).
  Millis reach_threshold(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis lo,
                         Millis hi, Millis resolution_ms, int votes, Op op = Op::Read,
                         int confirm = 0);

  // A plain timed read (for validation), retried if disturbed.
  ProbeResult read(std::uint64_t lba, std::uint32_t count = 1);

  // Refreshes the reference anchor when due. Called by the probe functions.
  void maintain();
  std::uint64_t probes() const { return probes_; }

 private:
  ProbeResult read_clean(std::uint64_t lba, std::uint32_t count, Op op = Op::Read);
  ProbeResult read_raw(std::uint64_t lba, Op op = Op::Read);
  bool fit_reference(std::vector<Millis> t, std::string* why);
  // The median step of reads walking backwards from mid-device: a revolution less a
  // sector, read without the buffer's help.
  Millis walk_period();
  void refit();
  int misses_to_confirm() const;
  Millis reach_threshold_noisy(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis lo, Millis hi,
                               Millis resolution, Op op, int confirm);
  bool decide(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis slack, int votes,
              Op op, std::vector<double>& slack_errors);

  Millis stop_at_ = std::numeric_limits<Millis>::infinity();
  std::string stop_why_;
  void check_stop() const;
  ProbeTarget& target_;
  ProberOptions opt_;
  Millis period_ = 0.0;
  Millis anchor_ = 0.0;   // a time at which the frame's phase is 0
  Millis jitter_ = 0.0;
  Millis core_jitter_ = 0.0;  // of the completions that were not late
  double late_fraction_ = 0.0, flagged_fraction_ = 0.0;
  bool flags_trusted_ = true;
  std::vector<Millis> ref_times_;  // completion times of every reference read
  std::size_t rejected_ = 0;
  Millis last_refresh_ = 0.0;
  // What the last refresh took: behind a cache defeat each re-read of the reference
  // first pushes it out of the buffer (128 reads on an 8 TB drive), and refreshes are
  // then spaced so that they cost at most a tenth of the time (kRefreshShare).
  Millis refresh_cost_ = 0.0;
  std::map<std::uint64_t, Millis> read_once_;  // one_read_suffices(): lba -> completion
  int repeats_ = 1;
  std::uint64_t probes_ = 0;
  bool in_maintain_ = false;
};

}  // namespace disksched::extract
