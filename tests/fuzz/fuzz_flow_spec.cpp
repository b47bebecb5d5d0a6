// Fuzz target: process-flow workload specs ("gp93:preempt=off", "flow:procs=4,file=1m"),
// as `disksched flow --workload` takes them. A spec that parses must write a canonical
// spec that reads back the same, and lay its files out on GP's disk or say why not.
// Documented failure: SpecError. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "emulator/sim/process_flow/flow_workload.hpp"
#include "predictor/device_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace disksched;
  static const auto disk = load_model("gp93");
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  try {
    const flow::FlowWorkload w = flow::FlowWorkload::parse(spec);
    if (flow::FlowWorkload::parse(w.spec()).spec() != w.spec()) {
      std::fprintf(stderr, "canonical spec '%s' does not read back the same\n", w.spec().c_str());
      std::abort();
    }
    const flow::FlowConfig c = w.config(disk->capacity_bytes());
    for (const auto& f : c.files)
      if (f.offset + f.blocks * c.block_bytes > disk->capacity_bytes()) std::abort();  // off the disk
    (void)w.programs();
  } catch (const SpecError&) {
  }
  return 0;
}
