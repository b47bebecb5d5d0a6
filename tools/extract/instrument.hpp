// The measuring instrument every extraction step uses: the probe target (through the
// cache defeat when the drive's buffer answers reads), the prober (timed probes, the
// rotating frame, noise handling), the clock and budget, the seeded sampler, the
// progress bar and the notes. It holds no geometry: what the steps find is in Findings.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tools/extract/cache_check.hpp"
#include "tools/extract/cache_defeat.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/progress.hpp"
#include "tools/extract/prober.hpp"

namespace disksched::extract {

// A skew within this many sectors of a whole number is taken to be that number:
// drives skew by whole sectors, and the cumulative skew model multiplies any error by
// the number of tracks crossed.
constexpr double kSnapSectors = 0.2;

inline double snap(double sectors) {
  const double r = std::round(sectors) + 0.0;  // + 0.0: no "-0" in the profile
  return std::fabs(sectors - r) <= kSnapSectors ? r : std::round(sectors * 100.0) / 100.0;
}

// A step's deadline passed (Instrument::check_deadline).
struct OutOfTime {};

class Instrument {
 public:
  // `started`: when the extraction began on the target's clock (the budget counts from
  // there: a first attempt that a cache answered and the cache check are spent from it).
  // `steps`: the plan's step names, for the progress bar.
  Instrument(ProbeTarget& t, const ExtractOptions& o, const CacheFindings& cache, CacheDefeat* defeat,
             Millis started, std::vector<std::string> steps);

  ProbeTarget& target;
  const ExtractOptions& options;
  Prober prober;
  CacheDefeat* defeat = nullptr;  // nullptr: no buffer answered, probes go straight
  int votes = 1;                  // hits per reach decision (3 on a jittery host)
  std::uint64_t turned_round = 0;  // reach pairs measured the other way round
  std::vector<std::string> notes;  // warnings and cross-checks, in the order made

  Millis elapsed() { return target.now_ms() - start_; }
  Millis left() { return options.budget_ms - elapsed(); }
  void step(const std::string& name) { progress_.step(name, elapsed(), options.budget_ms); }
  void tick(double fraction) { progress_.update(fraction, elapsed(), options.budget_ms); }
  void finish() { progress_.finish(); }
  void note(const std::string& s) {
    notes.push_back(s);
    progress_.note("extract: " + s);
  }
  std::uint64_t rand_below(std::uint64_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_);
  }
  double tau(std::uint32_t spt) const { return prober.period() / spt; }
  // A skew found on the way (heads and zones steps): where the timing is noisy enough to
  // take several reads a phase, a quarter of a sector off, multiplied by the tracks that
  // the tests of a cylinder cross, sends them astray, so whole sectors until the skews
  // step measures them.
  double first_skew(double sectors) const {
    return prober.noisy() || prober.repeats() > 1 ? std::round(sectors) + 0.0 : snap(sectors);
  }

  // A step that must end by a time (from the run's start) sets it; check_deadline then
  // throws OutOfTime past it.
  std::optional<Millis> deadline;
  void check_deadline() {
    if (deadline && elapsed() > *deadline) throw OutOfTime{};
  }

  // Smallest slack to reach dst from src (ms), see Prober::reach_threshold; to
  // options.resolution_ms unless a resolution is given.
  Millis reach(std::uint64_t src, std::uint64_t dst, Millis lo, Millis hi, Op op = Op::Read,
               std::optional<Millis> resolution = std::nullopt);
  // A reach pair as it is measured: the other way round when dst is in src's read-ahead
  // (see reach).
  struct Move {
    std::uint64_t src, dst;
  };
  Move oriented(Move m);
  // Move time (seek / head switch) from src's track to dst's track, past the dead time.
  Millis move_time(std::uint64_t src, std::uint64_t dst, std::uint32_t dst_spt, Millis guess, Millis dead_ms,
                   std::optional<Millis> resolution = std::nullopt);

 private:
  std::mt19937_64 rng_;
  Progress progress_;
  Millis start_ = 0;
};

// Adds the time from its construction to its end (or an exception through it).
struct Timed {
  Instrument& in;
  Millis& into;
  Millis start;
  Timed(Instrument& i, Millis& m) : in(i), into(m), start(i.elapsed()) {}
  ~Timed() { into += in.elapsed() - start; }
};

}  // namespace disksched::extract
