// The period step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "tools/extract/stats.hpp"

namespace disksched::extract {
namespace {

// Spinning for completions saves the wake-up; blocking leaves the core to the server.
// Which one times completions better depends on the machine: try both on back-to-back
// reads of the reference and keep the one with more whole revolutions.
void choose_completion_wait(Instrument& in) {
  if (!in.target.set_spin_wait(false)) return;
  const Millis tight = 0.03;
  auto clean_turns = [&] {
    std::vector<Millis> t;
    for (int i = 0; i < 41; ++i) t.push_back(in.target.read(in.options.reference_lba, 1).complete_ms);
    std::vector<double> d;
    for (std::size_t i = 1; i < t.size(); ++i) d.push_back(t[i] - t[i - 1]);
    const double m = median(d);
    return static_cast<int>(std::count_if(d.begin(), d.end(), [&](double x) { return std::fabs(x - m) <= tight; }));
  };
  in.target.read(in.options.reference_lba, 1);
  const int blocking = clean_turns();
  in.target.set_spin_wait(true);
  const int spinning = clean_turns();
  const bool spin = spinning > blocking;
  in.target.set_spin_wait(spin);
  in.note(fmt::format("waiting for completions by {}: {} of 40 back-to-back reads landed within {:.0f} us of "
                      "a whole revolution spinning, {} blocking",
                      spin ? "spinning" : "blocking", spinning, 1000 * tight, blocking));
}

}  // namespace

void measure_period(Instrument& in, Findings& f, double /*share*/) {
  in.step("period");
  choose_completion_wait(in);
  const int reads = static_cast<int>(std::clamp(in.options.budget_ms / 1000.0, 60.0, 200.0));
  if (auto floor = in.target.null_round_trip_ms()) {
    std::vector<double> v{*floor};
    for (int i = 0; i < 49; ++i) v.push_back(*in.target.null_round_trip_ms());
    f.result.host_floor_ms = median(v);
  } else {
    in.note("the host path's own round trip cannot be measured for this target; overheads "
            "include it");
  }
  f.result.period = in.prober.measure_period(reads);
  in.votes = f.result.period.jitter_ms > 0.002 ? 3 : 1;
  if (in.prober.noisy() || !in.prober.flags_trusted())
    in.note(fmt::format("noisy host timing: {:.0f} % of reference completions late, {:.0f} % of probes "
                        "preempted{}; taking the densest of more reads per phase and one hit per reach "
                        "decision{}",
                        100 * f.result.period.late_fraction, 100 * f.result.period.flagged_fraction,
                        in.prober.flags_trusted() ? "" : " (too many to repeat them)",
                        in.options.timing_advice.empty() ? "" : "; to time it better: " + in.options.timing_advice));
  in.tick(1.0);
  if (!in.defeat)
    in.note(fmt::format("no drive cache answered: back-to-back reads of sector {} took a revolution each",
                        in.options.reference_lba));
  const double rpm = 60000.0 / f.result.period.period_ms;
  if (in.options.seeds.nominal_rpm) {
    const double dev = rpm / *in.options.seeds.nominal_rpm - 1.0;
    in.note(fmt::format("measured {:.1f} rpm, nominal {} rpm ({:+.2f} %)", rpm, *in.options.seeds.nominal_rpm,
                        100 * dev));
    if (std::fabs(dev) > 0.01)
      in.note("measured speed differs from the nominal by more than 1 %: check that the drive's "
              "caches are off and nothing else uses the device");
  }
}

}  // namespace disksched::extract
