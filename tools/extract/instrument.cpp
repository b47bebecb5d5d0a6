#include "tools/extract/instrument.hpp"

#include <utility>

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
      start_(started) {}

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
