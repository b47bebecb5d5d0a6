// The process-flow workload language and GP's compression workload.
#include <catch2/catch.hpp>

#include "emulator/sim/process_flow/compress_program.hpp"
#include "emulator/sim/process_flow/flow_workload.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;
using namespace disksched::flow;

TEST_CASE("flow specs read units and name what is wrong") {
  const FlowWorkload w = FlowWorkload::parse("flow:procs=3,file=1m,cpu=5ms,cache=2m,daemon=500ms,preempt=off");
  CHECK(w.number("procs") == 3);
  CHECK(w.in_blocks() == 256);
  const FlowConfig c = w.config(load_model("gp93")->capacity_bytes());
  CHECK(c.files.size() == 6);
  CHECK(c.cache_blocks == 512);
  CHECK(c.daemon_period_ms == 500.0);
  CHECK_FALSE(c.system.preempt_on_wake);
  CHECK(c.files[3].blocks == compress_out_blocks(256, w.number("ratio")));
  CHECK(FlowWorkload::parse(w.spec()).spec() == w.spec());  // the canonical spec reads back the same

  CHECK_THROWS_WITH(FlowWorkload::parse("flow:cpu=5"), Catch::Contains("cpu") && Catch::Contains("ms"));
  CHECK_THROWS_WITH(FlowWorkload::parse("flow:procz=2"), Catch::Contains("procz"));
  CHECK_THROWS_WITH(FlowWorkload::parse("compress"), Catch::Contains("valid: gp93"));
  CHECK_THROWS_WITH(FlowWorkload(FlowWorkload::parse("flow:file=400m")).config(load_model("gp93")->capacity_bytes()),
                    Catch::Contains("do not fit"));
}

TEST_CASE("the compress program: create, then read, compute and write in proportion") {
  CompressParams p;
  p.in_blocks = 4;
  p.ratio = 0.5;
  p.cpu_ms = 10;
  CompressProgram prog(p);
  std::vector<Step::Kind> kinds;
  for (Step s = prog.next(); s.kind != Step::Kind::Exit; s = prog.next()) kinds.push_back(s.kind);
  using K = Step::Kind;
  const std::vector<K> want = {K::Create, K::Read, K::Compute, K::Read, K::Compute, K::Write,
                               K::Read,   K::Compute, K::Read, K::Compute, K::Write};
  CHECK(kinds == want);
}

TEST_CASE("gp93: GP's request counts by class, every read through the read-ahead chain") {
  auto model = load_model("gp93");
  const FlowWorkload w = FlowWorkload::parse("gp93");
  ProcessFlowSim sim(*model, make_scheduler("look", *model), w.config(model->capacity_bytes()));
  for (auto& p : w.programs()) sim.add_process(std::move(p));
  const FlowResult r = sim.run();
  // Per process: one TC read (the first block) and one TC inode write (its output file).
  CHECK(r.of(IoClass::TimeCritical).count == 4);
  CHECK(r.of(IoClass::TimeLimited).count == 2 * (w.in_blocks() - 1));  // GP: 17777
  CHECK(r.of(IoClass::TimeNoncritical).count == 2 * compress_out_blocks(w.in_blocks(), 0.4704));  // GP: 8364
  CHECK(r.tl_needed == r.of(IoClass::TimeLimited).count);
  CHECK(r.cache_waits == 0);
  CHECK(r.last_io_ms >= r.execution_ms);
}
