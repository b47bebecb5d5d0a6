// Fuzz target: one trace format of bench/sim/trace_reader (the format is chosen at
// build time, -DTRACE_FORMAT="...", one executable and one corpus per format).
// Documented failure: TraceError naming the file, line and field. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "bench/sim/trace_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const auto t = disksched::read_trace(TRACE_FORMAT, in, "fuzz-input");
    (void)t.rate_per_s();
    (void)t.mean_bytes();
  } catch (const disksched::TraceError&) {
  }
  return 0;
}
