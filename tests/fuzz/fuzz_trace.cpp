// Fuzz target: one trace format of bench/experiments/trace_reader (the format is chosen at
// build time, -DTRACE_FORMAT="...", one executable and one corpus per format). Each
// input is read with the default options and with the other reading the format offers
// (blkparse: the queued stream with merges; ascii and csv: nanosecond times).
// Documented failure: TraceError naming the file, line and field. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "bench/experiments/trace/trace_reader.hpp"

namespace {

void read(const std::string& bytes, const disksched::TraceOptions& options) {
  std::istringstream in(bytes);
  try {
    const auto t = disksched::read_trace(TRACE_FORMAT, in, "fuzz-input", options);
    (void)t.rate_per_s();
    (void)t.mean_bytes();
  } catch (const disksched::TraceError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  read(bytes, {});
  disksched::TraceOptions other;
  if (std::string_view(TRACE_FORMAT) == "blkparse")
    other.events = disksched::BlkEvents::Queued;
  else if (std::string_view(TRACE_FORMAT) == "ascii" || std::string_view(TRACE_FORMAT) == "csv")
    other.ms_per_time_unit = 1e-6;
  else
    return 0;
  read(bytes, other);
  return 0;
}
