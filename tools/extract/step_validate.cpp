// The validation step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "predictor/disk_model.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

void validate(Instrument& in, Findings& f, double /*share*/) {
  in.step("validate");
  DiskModel m(f.result.profile);
  const std::uint64_t total = std::min<std::uint64_t>(in.target.sectors(), m.lbas());
  const Millis tol = std::max(2.0 * in.prober.period() / f.result.layout.zones.front().spt, 0.02 * in.prober.period());
  std::vector<double> err;
  const Millis start = in.elapsed();
  // What is left of the budget (at least 30 pairs, a second or two, when none is).
  const Millis budget = std::max(in.left(), 0.0);
  for (int i = 0; i < in.options.max_validation_pairs; ++i) {
    // (Not a pair that would end past the budget, at the pace so far.)
    if (i >= 30 && (in.elapsed() - start) * (i + 1) / i > budget) break;
    const std::uint64_t a = in.rand_below(total), b = in.rand_below(total);
    const ProbeResult ra = in.prober.read(a);
    (void)ra;
    const ProbeResult rb = in.target.read(b, 1);
    if (rb.disturbed && in.prober.flags_trusted()) continue;
    const Location la = m.locate(a, 1, Op::Read);
    HeadState from;
    // The platter anchored on the frame (refined as the run went on).
    from.spin = Spin::anchored(in.prober.next_time_at(0.0, rb.issue_ms), m.end_angle(in.options.reference_lba, 1),
                               in.prober.period());
    from.time_ms = rb.issue_ms + f.result.host_floor_ms;
    from.cylinder = la.cylinder;
    from.head = la.head;
    const Cost c = m.service(from, Op::Read, b * in.target.sector_bytes(), in.target.sector_bytes());
    err.push_back(rb.complete_ms - c.end.time_ms);
    in.tick(std::min(1.0, (in.elapsed() - start) / budget));
  }
  Validation& v = f.result.validation;
  v.pairs = static_cast<int>(err.size());
  v.tolerance_ms = tol;
  if (err.empty()) return;
  std::vector<double> abs;
  int ok = 0;
  for (double e : err) {
    abs.push_back(std::fabs(e));
    ok += std::fabs(e) <= tol;
  }
  std::sort(abs.begin(), abs.end());
  v.within_tolerance = static_cast<double>(ok) / static_cast<double>(err.size());
  v.median_abs_error_ms = median(abs);
  v.p95_abs_error_ms = abs[static_cast<std::size_t>(0.95 * static_cast<double>(abs.size() - 1))];
  if (v.within_tolerance < 0.9)
    in.note(fmt::format("only {:.0f} % of {} validation pairs were predicted within {:.3f} ms: the "
                        "completions here are hard to predict (irregular layout, caching, or noise); "
                        "this is the prediction on this host, not a verdict on the geometry, which "
                        "`disksched extract check` compares{}",
                        100 * v.within_tolerance, v.pairs, tol,
                        in.prober.noisy() ? fmt::format("; {:.0f} % of completions are seen late on this host, and a "
                                              "late completion counts as an error here{}",
                                              100 * in.prober.late_fraction(),
                                              in.options.timing_advice.empty() ? "" : "; to time it better: " + in.options.timing_advice)
                                : ""));
  in.tick(1.0);
}

}  // namespace disksched::extract
