#include "emulator/sim/process_flow/flow_report.hpp"

#include <fmt/format.h>

namespace disksched::flow {

std::string report(const FlowResult& r) {
  std::string out;
  auto row = [&out](const std::string& k, const std::string& v) { out += fmt::format("  {:<36} {}\n", k, v); };
  row("execution time (ms)", fmt::format("{:.1f}", r.execution_ms));
  row("false idle time (ms)", fmt::format("{:.1f}", r.false_idle_ms));
  row("other idle time (ms)", fmt::format("{:.1f}", r.idle_ms));
  row("context switches", fmt::format("{}", r.context_switches));
  row("I/O / clock interrupts", fmt::format("{} / {}", r.io_interrupts, r.clock_interrupts));
  row("cache waits", fmt::format("{}", r.cache_waits));
  for (const IoClass c : {IoClass::TimeCritical, IoClass::TimeLimited, IoClass::TimeNoncritical}) {
    const ClassStats& s = r.of(c);
    row(fmt::format("{} requests", class_name(c)), fmt::format("{}", s.count));
    row(fmt::format("{} mean / max response (ms)", class_name(c)),
        fmt::format("{:.2f} / {:.2f}", s.mean_response_ms(), s.max_response_ms));
  }
  row("TL mean limit (ms)", fmt::format("{:.2f}", r.mean_limit_ms()));
  row("TL within limit", fmt::format("{:.2f}% of {}", 100 * r.tl_in_time_share(), r.tl_needed));
  row("mean response, all (ms)", fmt::format("{:.2f}", r.mean_response_ms()));
  row("mean access time (ms)", fmt::format("{:.3f}", r.mean_access_ms()));
  row("drive buffer hits", fmt::format("{} of {}", r.buffer_hits, r.requests));
  row("mean seek (cyl / ms)", fmt::format("{:.1f} / {:.3f}", r.mean_seek_cylinders(), r.mean_seek_ms()));
  row("last I/O done (ms)", fmt::format("{:.1f}", r.last_io_ms));
  return out;
}

}  // namespace disksched::flow
