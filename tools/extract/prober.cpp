#include "tools/extract/prober.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/extract/stats.hpp"

namespace disksched::extract {
namespace {

// Faster than 25 000 rpm means the answers come from a cache, not the platter.
constexpr Millis kMinPeriodMs = 2.4;
constexpr Millis kMaxPeriodMs = 100.0;
constexpr int kMaxRetries = 5;
// The most of the time that re-reads of the reference may take (Prober::maintain).
constexpr double kRefreshShare = 0.1;
// Completions that scatter less than this are steady: a tenth of a sector of an 8 TB
// 7200 rpm drive (Prober::one_read_suffices).
constexpr Millis kSteadyJitterMs = 0.0002;

}  // namespace

Prober::Prober(ProbeTarget& target, ProberOptions options) : target_(target), opt_(options) {
  if (opt_.reference_lba >= target_.sectors())
    throw std::invalid_argument(fmt::format("reference LBA {} is beyond the device ({} sectors)",
                                            opt_.reference_lba, target_.sectors()));
}

void Prober::check_stop() const {
  if (target_.now_ms() > stop_at_) throw TimingNoiseError(stop_why_);
}

ProbeResult Prober::read_raw(std::uint64_t lba, Op op) {
  check_stop();
  if (lba + 1 > target_.sectors())
    throw std::logic_error(fmt::format("probe of sector {} beyond the device ({} sectors)", lba, target_.sectors()));
  ++probes_;
  return op == Op::Write ? target_.write(lba, 1) : target_.read(lba, 1);
}

ProbeResult Prober::read_clean(std::uint64_t lba, std::uint32_t count, Op op) {
  if (lba + count > target_.sectors())
    throw std::logic_error(fmt::format("probe of sectors [{}, {}) beyond the device ({} sectors)", lba,
                                       lba + count, target_.sectors()));
  ProbeResult r;
  for (int i = 0; i < kMaxRetries; ++i) {
    check_stop();
    r = op == Op::Write ? target_.write(lba, count) : target_.read(lba, count);
    ++probes_;
    if (!r.disturbed || !flags_trusted_) break;
  }
  return r;
}

ProbeResult Prober::read(std::uint64_t lba, std::uint32_t count) {
  maintain();
  return read_clean(lba, count);
}

Millis Prober::walk_period() {
  // Sectors read backwards, each just after the one above it: each comes round a
  // revolution less a sector later (a whole one within a 512e drive's physical sector),
  // and none is ever in the buffer (read-ahead holds what lies past a read), so no
  // evicting read is needed. The median step is the period to a sector's time; a late
  // completion lengthens one step and shortens the next, a track switch bends one.
  constexpr int kWalk = 41;
  const std::uint64_t n = target_.sectors();
  const std::uint64_t top = std::clamp<std::uint64_t>(opt_.reference_lba + n / 2, kWalk, n - 1);
  std::vector<double> steps;
  Millis before = read_raw(top).complete_ms;
  for (std::uint64_t j = 1; j < kWalk; ++j) {
    const Millis t = read_raw(top - j).complete_ms;
    steps.push_back(t - before);
    before = t;
  }
  return median(steps);
}

PeriodEstimate Prober::measure_period(int reads) {
  reads = std::max(reads, 20);
  const std::uint64_t ref = opt_.reference_lba;
  if (opt_.period_hint_ms > 0) {
    // Behind a cache defeat the reference's reads are several revolutions apart, and the
    // cache check's hint (a median of five noisy reads of the sector behind) was 1 % off
    // on a late host: over the 90 revolutions between reads behind 128 segments the
    // counts slipped ("no rotation signal"). The walk is good to a sector's time.
    const Millis walked = walk_period();
    if (walked > 0.5 * opt_.period_hint_ms && walked < 1.5 * opt_.period_hint_ms) opt_.period_hint_ms = walked;
  }
  read_raw(ref);  // settle: the first read pays a seek from wherever the head was
  // Raw reads, not repeated when flagged: the fit rejects the late ones, and on a busy
  // host nearly every read is flagged. A second, larger batch before giving up lets a
  // burst of load pass.
  std::string why;
  for (int batch = 0; batch < 2; ++batch) {
    std::vector<Millis> t;
    std::size_t flagged = 0;
    const int n = batch == 0 ? reads : 2 * reads;
    t.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const ProbeResult r = read_raw(ref);
      t.push_back(r.complete_ms);
      flagged += r.disturbed;
      // Reads many revolutions apart (behind a defeat of many segments, each read costs
      // as many evicting reads) span as long a baseline in fewer: stop at four times
      // the baseline of back-to-back reads.
      if (opt_.period_hint_ms > 0 && i >= 30 && t.back() - t.front() >= 4.0 * n * opt_.period_hint_ms) break;
    }
    flagged_fraction_ = static_cast<double>(flagged) / static_cast<double>(t.size());
    flags_trusted_ = flagged_fraction_ < 0.3;
    if (fit_reference(std::move(t), &why)) {
      last_refresh_ = ref_times_.back();
      return period_estimate();
    }
  }
  throw TimingNoiseError(why);
}

bool Prober::fit_reference(std::vector<Millis> t, std::string* why) {
  const std::uint64_t ref = opt_.reference_lba;
  std::vector<double> ict;
  for (std::size_t i = 1; i < t.size(); ++i) ict.push_back(t[i] - t[i - 1]);
  // The gaps are whole revolutions (one or two, mixed, behind a cache defeat) plus what a
  // late completion adds to its own gap and takes from the next. Their median can fall
  // between the one- and the two-revolution cluster (20.8 ms between 11.1 and 22.2 behind
  // a late host: 10.4 ms once halved, and the counts slipped). The densest cluster is one
  // of them, read on time at both ends.
  double t0 = densest(ict, 0.1);
  if (opt_.period_hint_ms > 0 && t0 > 1.5 * opt_.period_hint_ms) {
    // Each gap over its own whole number of revolutions: the densest of those, where a
    // gap's noise is shared among its revolutions (gaps of 90 of them, with none alike
    // to 0.1 ms, behind 128 segments).
    std::vector<double> per_turn, turns;
    for (double g : ict) {
      const double k = std::max(1.0, std::round(g / opt_.period_hint_ms));
      per_turn.push_back(g / k);
      turns.push_back(k);
    }
    t0 = densest(per_turn, 0.1 / median(turns));
  }
  if (t0 < kMinPeriodMs)
    throw CacheAnswersError(fmt::format(
        "repeated reads of sector {} complete every {:.3f} ms: that is a cache answering "
        "(or a device that does not rotate), not a platter; disable the drive's read cache "
        "and look-ahead and try again",
        ref, t0));
  if (t0 > kMaxPeriodMs)
    throw std::runtime_error(fmt::format(
        "repeated reads of sector {} complete every {:.1f} ms: slower than any disk "
        "spins; the target is too slow or too noisy to extract a geometry",
        ref, t0));
  // Integer revolution counts from an anchor on the densest phase (not the first read,
  // which may itself be late), then a robust line through (count, time).
  std::vector<double> ph;
  for (Millis ti : t) ph.push_back((ti - t.front()) / t0);
  const Millis anchor = t.front() + circular_mode(ph, 0.05) * t0;
  std::vector<double> n, y;
  auto fit_counted = [&](std::size_t span, Millis at, Millis period) {
    n.clear();
    y.clear();
    for (std::size_t i = 0; i < span; ++i) {
      n.push_back(std::round((t[i] - at) / period));
      y.push_back(t[i]);
    }
    return robust_line(n, y, 3.0, 3, 1e-6);
  };
  auto fits = [&](const LineFit& g) { return g.kept >= t.size() / 2 && g.rms <= 0.15 * t0; };
  LineFit f = fit_counted(t.size(), anchor, t0);
  if (!fits(f)) {
    // The median gap is the period only to a few hundredths of a millisecond (late reads
    // bend it, and gaps of one and two revolutions mixed leave it off by more): counted
    // from it over hundreds of revolutions the counts slip. Count the reads of the first
    // 64 revolutions, fit, and count twice as far with the period that fit gives.
    Millis at = anchor, period = t0;
    std::size_t span = 0;
    while (span < t.size() && t[span] - anchor < 64 * t0) ++span;
    for (span = std::max<std::size_t>(span, 8);; span = std::min(2 * span, t.size())) {
      span = std::min(span, t.size());
      const LineFit g = fit_counted(span, at, period);
      if (span == t.size() && fits(g)) {
        f = g;
        break;
      }
      if (span == t.size() || g.kept < span / 2 || !(g.slope > 0.9 * t0 && g.slope < 1.1 * t0)) {
        f = fit_counted(t.size(), anchor, t0);  // (its counts, for the message)
        break;
      }
      period = g.slope;
      at = g.intercept;
    }
  }
  if (!fits(f)) {
    std::size_t late = 0;
    for (std::size_t i = 0; i < n.size(); ++i) late += y[i] - f.intercept - f.slope * n[i] > 0.05 * t0;
    *why = fmt::format(
        "no rotation signal: completion times of {} repeated reads of sector {} do not fall on a "
        "{:.3f} ms grid (residual {:.3f} ms, {:.0f} % of them late by more than {:.2f} ms); the device "
        "does not rotate, a cache or a virtualisation layer hides it, or the host is too busy to time it",
        t.size(), ref, t0, f.rms, 100.0 * static_cast<double>(late) / static_cast<double>(n.size()), 0.05 * t0);
    return false;
  }
  period_ = f.slope;
  anchor_ = f.intercept;
  ref_times_ = std::move(t);
  refit();
  return true;
}

void Prober::refit() {
  std::vector<double> n, y;
  for (Millis ti : ref_times_) {
    n.push_back(std::round((ti - anchor_) / period_));
    y.push_back(ti);
  }
  const LineFit f = robust_line(n, y, 3.0, 3, 1e-6);
  period_ = f.slope;
  anchor_ = f.intercept;
  std::vector<double> res;
  for (std::size_t i = 0; i < n.size(); ++i) res.push_back(y[i] - f.intercept - f.slope * n[i]);
  jitter_ = robust_sigma(res);
  rejected_ = f.rejected;
  // Late: beyond what the jitter explains and by more than a tenth of a millisecond
  // (a small fraction of any sector's time is not worth more reads).
  const double centre = median(res);
  const double limit = std::max(6.0 * jitter_, 0.1);
  std::size_t late = 0;
  std::vector<double> core;
  for (double r : res) {
    late += r - centre > limit;
    if (std::fabs(r - centre) <= 3.0 * jitter_) core.push_back(r);
  }
  late_fraction_ = static_cast<double>(late) / static_cast<double>(res.size());
  core_jitter_ = core.size() >= 3 ? robust_sigma(core) : jitter_;
  if (!noisy()) return;
  // Late completions that the MAD rule kept (it widens with them) bend the line: fit
  // again through the densest band of residuals only, a few of its own jitters wide.
  constexpr Millis kBand = 0.1;
  std::vector<double> scaled;
  for (double r : res) scaled.push_back(r / period_);
  const double mode = wrap_half(circular_mode(scaled, kBand / period_)) * period_;
  core.clear();
  for (double r : res)
    if (std::fabs(r - mode) <= kBand) core.push_back(r);
  if (core.size() < 3) return;
  core_jitter_ = robust_sigma(core);
  const double half = std::max(4.0 * core_jitter_, 0.03);
  std::vector<double> kn, ky;
  for (std::size_t i = 0; i < res.size(); ++i)
    if (std::fabs(res[i] - mode) <= half) {
      kn.push_back(n[i]);
      ky.push_back(y[i]);
    }
  if (kn.size() < 3) return;
  const LineFit c = least_squares(kn, ky);
  period_ = c.slope;
  anchor_ = c.intercept;
}

PeriodEstimate Prober::period_estimate() const {
  PeriodEstimate e;
  e.period_ms = period_;
  e.jitter_ms = jitter_;
  e.reads = ref_times_.size();
  e.rejected = rejected_;
  e.baseline_ms = ref_times_.empty() ? 0.0 : ref_times_.back() - ref_times_.front();
  e.late_fraction = late_fraction_;
  e.flagged_fraction = flagged_fraction_;
  return e;
}

void Prober::maintain() {
  if (in_maintain_ || period_ <= 0) return;
  const Millis now = target_.now_ms();
  if (now - last_refresh_ < std::max(opt_.refresh_interval_ms, refresh_cost_ / kRefreshShare)) return;
  in_maintain_ = true;
  const int reads = one_read_suffices() ? 1 : 3;
  for (int i = 0; i < reads; ++i) ref_times_.push_back(read_clean(opt_.reference_lba, 1).complete_ms);
  refit();
  last_refresh_ = target_.now_ms();
  refresh_cost_ = last_refresh_ - now;
  in_maintain_ = false;
}

double Prober::phase_of(Millis t) const { return wrap_unit((t - anchor_) / period_); }

Millis Prober::next_time_at(double phase, Millis not_before) const {
  const double n = std::ceil((not_before - anchor_) / period_ - phase);
  return anchor_ + (n + phase) * period_;
}

bool Prober::one_read_suffices() const {
  return target_.prefers_descending_reads() && !noisy() && jitter_ < kSteadyJitterMs;
}

void Prober::prefetch(std::vector<std::uint64_t> lbas) {
  if (!one_read_suffices()) return;
  std::sort(lbas.begin(), lbas.end(), std::greater<>());
  for (std::uint64_t lba : lbas)
    if (lba < target_.sectors()) phase(lba);
}

double Prober::phase(std::uint64_t lba, int repeats, Op op) {
  if (repeats <= 0) repeats = repeats_;
  maintain();
  if (one_read_suffices()) {
    repeats = 1;
    if (op == Op::Read) {
      const auto it = read_once_.find(lba);
      if (it != read_once_.end()) return phase_of(it->second);
      const Millis t = read_clean(lba, 1).complete_ms;
      read_once_[lba] = t;
      return phase_of(t);
    }
  }
  std::vector<double> ph;
  for (int i = 0; i < repeats; ++i) ph.push_back(phase_of(read_clean(lba, 1, op).complete_ms));
  if (repeats == 1) return ph.front();
  return combine_phases(ph);
}

double Prober::combine_phases(const std::vector<double>& ph) const {
  // On a noisy host the late reads are rejected: the densest cluster, a few core
  // jitters wide, not the median of all; and of the cluster the earliest, since delays
  // only ever make a completion later.
  return noisy() ? circular_earliest(ph, std::max(4.0 * core_jitter_, 0.02) / period_) : circular_median(ph);
}

ReachSample Prober::reach(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis slack,
                          Op op) {
  maintain();
  ReachSample s;
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    target_.pair(src, dst);
    const ProbeResult a = read_clean(src, 1);
    const Millis target_time = next_time_at(dst_phase, a.complete_ms + opt_.gap_ms + slack);
    target_.wait_until(target_time - slack);
    if (dst >= target_.sectors())
      throw std::logic_error(fmt::format("reach probe of sector {} beyond the device", dst));
    const ProbeResult b = op == Op::Write ? target_.write(dst, 1) : target_.read(dst, 1);
    ++probes_;
    s.slack_ms = target_time - b.issue_ms;
    s.hit = b.complete_ms - target_time < 0.5 * period_;
    // A preemption may have cost the revolution: only a hit is still informative.
    if (s.hit || !b.disturbed || !flags_trusted_) break;
  }
  return s;
}

int Prober::misses_to_confirm() const {
  // A delay can only turn a hit into a miss: a miss counts once enough misses in a row
  // make a late host an explanation with odds under 1 %.
  const double q = std::clamp(late_fraction_, 0.01, 0.5);
  return std::clamp(static_cast<int>(std::ceil(std::log(0.01) / std::log(q))), 2, 7);
}

bool Prober::decide(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis slack,
                    int votes, Op op, std::vector<double>& errs) {
  int hits = 0, misses = 0;
  // On a noisy host one hit decides (see misses_to_confirm), else a majority of votes.
  const int need_hits = noisy() ? 1 : votes / 2 + 1;
  const int need_misses = noisy() ? misses_to_confirm() : votes / 2 + 1;
  while (hits < need_hits && misses < need_misses) {
    const ReachSample s = reach(src, dst, dst_phase, slack, op);
    errs.push_back(s.slack_ms - slack);
    (s.hit ? hits : misses)++;
  }
  return hits >= need_hits;
}

Millis Prober::reach_threshold_noisy(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis lo,
                                     Millis hi, Millis resolution, Op op, int confirm) {
  std::vector<double> errs;  // slack obtained - slack asked, per probe
  auto probe = [&](Millis slack) {
    const ReachSample s = reach(src, dst, dst_phase, slack, op);
    errs.push_back(s.slack_ms - slack);
    return s.hit;
  };
  lo = std::max(0.0, lo);
  hi = std::max(hi, lo + resolution);
  Millis proven_lo = 0.0;  // a slack known to miss
  int widen = 0;
  while (!decide(src, dst, dst_phase, hi, 1, op, errs)) {
    proven_lo = lo = hi;
    hi += period_;
    if (++widen > 8)
      throw TimingNoiseError(fmt::format(
          "sector {} never became reachable from sector {} within {:.1f} ms of slack", dst, src, hi));
  }
  // Every hit is proof; a miss is believed once it is the bracket's last: misses are
  // confirmed lazily, at the end, and only the highest (the lower ones follow from it).
  std::vector<Millis> unconfirmed;  // slacks that missed once, increasing
  widen = 0;
  while (lo > proven_lo) {
    if (!probe(lo)) {
      unconfirmed.push_back(lo);
      break;
    }
    hi = lo;
    lo = std::max(proven_lo, lo - 0.25 * period_);
    if (++widen > 16) break;
  }
  for (int round = 0; round < 64; ++round) {
    while (hi - lo > resolution) {
      const Millis mid = 0.5 * (lo + hi);
      if (probe(mid)) {
        hi = mid;
      } else {
        lo = mid;
        unconfirmed.push_back(mid);
      }
    }
    if (unconfirmed.empty() || unconfirmed.back() != lo) break;  // lo is proven
    bool hit = false;
    for (int i = 1; i < std::max(misses_to_confirm(), confirm) && !hit; ++i) hit = probe(lo);
    if (!hit) break;
    // It was a late host, not the disk: the threshold is below it.
    hi = lo;
    unconfirmed.pop_back();
    lo = unconfirmed.empty() ? proven_lo : unconfirmed.back();
  }
  // The median: a probe preempted on its way out must not shift the others.
  const Millis overshoot = errs.empty() ? 0.0 : median(errs);
  return 0.5 * (lo + hi) + overshoot;
}

Millis Prober::reach_threshold(std::uint64_t src, std::uint64_t dst, double dst_phase, Millis lo,
                               Millis hi, Millis resolution, int votes, Op op, int confirm) {
  if (noisy()) return reach_threshold_noisy(src, dst, dst_phase, lo, hi, resolution, op, confirm);
  std::vector<double> errs;  // slack obtained - slack asked, per probe
  lo = std::max(0.0, lo);
  hi = std::max(hi, lo + resolution);
  int widen = 0;
  while (!decide(src, dst, dst_phase, hi, votes, op, errs)) {
    lo = hi;
    hi += period_;
    if (++widen > 8)
      throw std::runtime_error(fmt::format(
          "sector {} never became reachable from sector {} within {:.1f} ms of slack", dst, src,
          hi));
  }
  widen = 0;
  while (lo > 0 && decide(src, dst, dst_phase, lo, votes, op, errs)) {
    hi = lo;
    lo = std::max(0.0, lo - 0.25 * period_);
    if (++widen > 16) break;
  }
  while (hi - lo > resolution) {
    const Millis mid = 0.5 * (lo + hi);
    if (decide(src, dst, dst_phase, mid, votes, op, errs))
      hi = mid;
    else
      lo = mid;
  }
  // The median: a probe preempted on its way out must not shift the others.
  const Millis overshoot = errs.empty() ? 0.0 : median(errs);
  return 0.5 * (lo + hi) + overshoot;
}

}  // namespace disksched::extract
