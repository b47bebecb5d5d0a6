// Fuzz target: workload specs ("uniform:size=8k", "closed:n=16,think=5ms",
// "trace:FORMAT:PATH,scale=F,..."), as `disksched sim --workload` and `replay` take
// them. A spec that parses produces a few dozen requests on a small device, each of
// which must lie on the device, in time order.
// A trace spec is run only with the path '@', which stands for a fixed CSV trace
// (FUZZ_TRACE_FIXTURE): the fuzzer must not read whatever path it invents (/dev/zero
// would never end); the trace formats have their own targets.
// Documented failures: WorkloadError, TraceError. Anything else is a bug.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/experiments/trace/trace_reader.hpp"
#include "bench/experiments/workload/workload.hpp"

namespace {

using namespace disksched;

std::string trimmed_lower(std::string s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The spec to parse, or "" to skip: a trace spec's path must be '@'.
std::string runnable(std::string spec) {
  const auto colon = spec.find(':');
  if (trimmed_lower(spec.substr(0, colon)) != "trace") return spec;
  const auto colon2 = colon == std::string::npos ? colon : spec.find(':', colon + 1);
  if (colon2 == std::string::npos) return spec;  // malformed: the parser says so
  const auto comma = spec.find(',', colon2 + 1);
  const std::string path = spec.substr(colon2 + 1, comma == std::string::npos ? comma : comma - colon2 - 1);
  if (path != "@") return "";
  return spec.replace(colon2 + 1, 1, FUZZ_TRACE_FIXTURE);
}

void check_on_device(std::uint64_t offset, std::uint32_t length, const DeviceExtent& dev) {
  if (offset > dev.capacity_bytes || length > dev.capacity_bytes - offset) {
    std::fprintf(stderr, "request [%llu, +%u) beyond the device (%llu bytes)\n",
                 static_cast<unsigned long long>(offset), length,
                 static_cast<unsigned long long>(dev.capacity_bytes));
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec = runnable(std::string(reinterpret_cast<const char*>(data), size));
  if (spec.empty()) return 0;
  const DeviceExtent dev{64ull << 20, 512};
  try {
    const Workload w = Workload::parse(spec);
    (void)w.spec();
    (void)w.mean_request_bytes();
    if (w.is_closed()) {
      const auto s = w.closed_stream(dev, 1);
      const std::size_t clients = std::min<std::size_t>(s->population(), 4);
      for (std::size_t c = 0; c < clients; ++c)
        for (int i = 0; i < 8; ++i) {
          const auto step = s->next(c);
          if (!step) break;
          check_on_device(step->offset, step->length, dev);
        }
    } else {
      const auto s = w.open_stream(dev, 50.0, 1);
      double last_ms = 0.0;
      for (int i = 0; i < 64; ++i) {
        const auto a = s->next();
        if (!a) break;
        check_on_device(a->offset, a->length, dev);
        if (!(a->time_ms >= last_ms)) {  // the stream's contract; also catches NaN
          std::fprintf(stderr, "arrival at %g ms after one at %g ms\n", a->time_ms, last_ms);
          std::abort();
        }
        last_ms = a->time_ms;
      }
    }
  } catch (const WorkloadError&) {
  } catch (const TraceError&) {
  }
  return 0;
}
