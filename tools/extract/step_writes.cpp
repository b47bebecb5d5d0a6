// The writes step (steps.hpp).
#include "tools/extract/steps.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "tools/extract/cache_check.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

void measure_writes(Instrument& in, Findings& f, double /*share*/) {
  in.step("writes");
  if (!in.options.writable) return;
  const auto [first, last] = *in.options.writable;
  const Layout& L = f.result.layout;
  // A whole track inside the writable range.
  std::optional<std::uint64_t> track;
  std::uint32_t zspt = 0;
  for (const auto& z : L.zones) {
    for (std::int64_t c = z.first_cylinder; c <= z.last_cylinder() && !track; ++c) {
      const std::uint64_t lo = L.lba(c, 0, 0);
      if (lo > last) break;
      for (std::int32_t h = 0; h < L.heads && !track; ++h) {
        const std::uint64_t a = L.lba(c, h, 0), b = L.lba(c, h, z.spt - 1);
        if (a >= first && b <= last && b - a + 1 == z.spt) {
          track = a;
          zspt = z.spt;
        }
      }
      // Jump to the cylinder that holds `first` instead of walking every one.
      if (!track && lo < first) {
        const std::uint64_t per_cyl = static_cast<std::uint64_t>(L.heads) * z.spt;
        const auto skip = static_cast<std::int64_t>((first - lo) / per_cyl);
        if (skip > 1) c += skip - 1;
      }
    }
    if (track) break;
  }
  if (!track) {
    in.note("the writable range holds no whole track: write timing not measured; writes are "
            "given the read overheads");
    return;
  }
  const std::uint64_t x = *track + 1, y = x + zspt / 2;
  check_write_behind(in.target, x, y, f.result.cache);
  in.note(f.result.cache.describe_write_behind());
  const int n = std::max(3, in.prober.repeats());
  const double pr = in.prober.phase(y, n, Op::Read), pw = in.prober.phase(y, n, Op::Write);
  f.write_completion = wrap_half(pw - pr) * in.prober.period();
  if (f.write_completion < 0) {
    in.note(fmt::format("writes complete {:.3f} ms before reads of the same sector; completion "
                        "offset for writes set to 0",
                        -f.write_completion));
    f.write_completion = 0;
  }
  const double ph = in.prober.phase(y, 0, Op::Write);
  const Millis s = in.prober.reach_threshold(x, y, ph, 0.0, in.prober.period(), in.options.resolution_ms, in.votes, Op::Write);
  f.write_overhead = std::max(0.0, s - in.tau(zspt) - f.result.host_floor_ms - f.write_completion);
  in.tick(1.0);
}

}  // namespace disksched::extract
