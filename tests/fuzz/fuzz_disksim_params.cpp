// Fuzz target: DiskSim 4.0 parameter files (libparam syntax), as `disksched model import`
// reads them, with `source` refused (a fuzzer must not open files).
// Documented failure: ParamError. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "predictor/import/disksim_params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)disksched::disksim::parse_text(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.parv", "");
  } catch (const disksched::disksim::ParamError&) {
  }
  return 0;
}
