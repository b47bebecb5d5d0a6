#include "tools/extract/instrument.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace disksched::extract {

Instrument::Instrument(ProbeTarget& t, const ExtractOptions& o, const CacheFindings& cache, CacheDefeat* d,
                       Millis started, std::vector<std::string> steps)
    : target(t),
      options(o),
      // Behind a cache defeat, reference reads are several turns apart: the time of the
      // sector just behind (a turn less one sector) tells the fit how many.
      prober(t, ProberOptions{o.reference_lba, 3000.0, 0.05, d ? cache.behind_ms : 0.0}),
      defeat(d),
      rng_(o.seed),
      progress_(o.progress, std::move(steps)),
      start_(started) {
  // A hard stop well past the budget: behind a cache defeat of many segments and a noisy
  // host a step's probes cost 128 evicting reads each, and a run went on for 86 minutes
  // of the drive's time against a 9.5-minute budget.
  const Millis limit = std::max(2.0 * o.budget_ms, o.budget_ms + 600'000.0);
  prober.stop_at(started + limit,
                 fmt::format("the extraction reached its hard limit, {:.0f} s of the drive's time for a {:.0f} s "
                             "budget, before it could finish{}; a quieter host, --heads N, or a longer --budget "
                             "would help",
                             limit / 1000.0, o.budget_ms / 1000.0,
                             d ? " (behind the drive's read cache: turning it off, sdparm --set=RCD or hdparm -A0, "
                                 "saves the reads that push probed sectors out of it)"
                               : ""));
}

Millis Instrument::reach(std::uint64_t src, std::uint64_t dst, Millis lo, Millis hi, Op op,
                         std::optional<Millis> resolution) {
  // A dst a little past src would be served by src's read-ahead: measure from dst's
  // track to src's instead. The move is the same (a track's own sectors, a head switch
  // or a seek cost the same either way) and the dst then lies behind the head.
  if (defeat && op == Op::Read && defeat->ahead_of(src, dst)) {
    std::swap(src, dst);
    ++turned_round;
  }
  const double ph = prober.phase(dst, 0, op);
  return prober.reach_threshold(src, dst, ph, lo, hi, resolution.value_or(options.resolution_ms), votes, op);
}

Instrument::Move Instrument::oriented(Move m) {
  if (defeat && defeat->ahead_of(m.src, m.dst)) {
    std::swap(m.src, m.dst);
    ++turned_round;
  }
  return m;
}

Millis Instrument::move_time(std::uint64_t src, std::uint64_t dst, std::uint32_t dst_spt, Millis guess,
                             Millis dead_ms, std::optional<Millis> resolution) {
  const Millis base = tau(dst_spt) + dead_ms;
  const Millis s = reach(src, dst, base + guess - 0.3, base + guess + 1.0, Op::Read, resolution);
  return s - base;
}

}  // namespace disksched::extract
