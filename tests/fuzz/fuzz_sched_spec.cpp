// Fuzz target: scheduler specs ("asatf:w=30", "priority:variant=2,timeout=500ms"), as
// `sched=`, `disksched ctl switch` and `--sched` take them. A spec that parses builds
// its scheduler on the HP 97560 and the MEMS model, which then serves a fixed handful
// of requests, so the parameter values are exercised too (a range check that lets
// through what the algorithm cannot use shows up here).
// Documented failure: SpecError. Anything else, or a request lost, is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "predictor/device_model.hpp"
#include "predictor/mems/mems_model.hpp"
#include "schedulers/registry.hpp"

namespace {

using namespace disksched;

void serve_a_few(Scheduler& s, const DeviceModel& m) {
  const std::uint64_t sectors = m.capacity_bytes() / m.sector_bytes();
  const std::uint64_t lbas[] = {0, sectors / 2, 17, sectors - 16, sectors / 3, 17, 4096};
  std::uint64_t id = 0;
  for (const std::uint64_t lba : lbas) {
    Request r;
    r.id = ++id;
    r.op = id % 3 == 0 ? Op::Write : Op::Read;
    r.offset = lba * m.sector_bytes();
    r.length = 16 * m.sector_bytes();
    r.cls = static_cast<IoClass>(id % 3);
    r.limit_ms = 50.0;
    r.arrival_ms = static_cast<double>(id);
    r.loc = m.locate(lba, 16, r.op);
    s.add(r);
  }
  HeadState head = m.initial_state();
  head.time_ms = 10.0;
  std::uint64_t served = 0;
  while (s.size() > 0) {
    const auto r = s.pick(head.time_ms, head);
    if (!r) std::abort();  // requests queued, none given
    head = m.service(head, r->op, r->offset, r->length).end;
    s.completed(*r, head.time_ms);
    ++served;
  }
  if (served != id) std::abort();  // a request lost or served twice
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto disk = load_model("hp97560");
  static const auto mems = make_mems_model();
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  for (const DeviceModel* m : {disk.get(), mems.get()}) {
    try {
      const auto s = make_scheduler(spec, *m);
      // The canonical spec (`ctl show` prints it; users copy it) must read back.
      try {
        make_scheduler(s->spec(), *m);
      } catch (const SpecError& e) {
        std::fprintf(stderr, "canonical spec '%s' does not parse: %s\n", s->spec().c_str(), e.what());
        std::abort();
      }
      serve_a_few(*s, *m);
    } catch (const SpecError&) {
    }
  }
  return 0;
}
