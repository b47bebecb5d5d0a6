// The process-flow rules on hand-computed cases, exactly, in virtual time. The disk is
// `fixed:ms=10` (every request takes 10 ms) under FCFS unless a case says otherwise.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "emulator/sim/process_flow/process_flow.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;
using namespace disksched::flow;

namespace {

constexpr auto TC = IoClass::TimeCritical;
constexpr auto TL = IoClass::TimeLimited;
constexpr auto TNC = IoClass::TimeNoncritical;

// No clock interrupts, no costs, no drive buffer: only what a case turns on.
FlowConfig bare() {
  FlowConfig c;
  c.system.clock_period_ms = 1e12;
  c.system.clock_handler_ms = 0;
  c.system.io_handler_ms = 0;
  c.system.context_switch_ms = 0;
  c.system.quantum_ms = 0;
  c.drive_buffer_bytes = 0;
  c.daemon_period_ms = 1e12;
  return c;
}

struct Run {
  FlowResult result;
  std::vector<FlowIo> done;
};

Run run(FlowConfig cfg, std::vector<std::vector<Step>> programs, const char* sched = "fcfs") {
  auto model = load_model("fixed:ms=10");
  ProcessFlowSim sim(*model, make_scheduler(sched, *model), std::move(cfg));
  for (auto& p : programs) sim.add_process(std::make_unique<ScriptProgram>(std::move(p)));
  Run r;
  sim.on_done([&](const FlowIo& io) { r.done.push_back(io); });
  r.result = sim.run();
  return r;
}

}  // namespace

TEST_CASE("a time-critical request blocks its process at once; the CPU idles falsely meanwhile") {
  const Run r = run(bare(), {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(5)}});
  // Blocked 0..10 on the request, computes 10..15.
  CHECK(r.result.execution_ms == 15.0);
  CHECK(r.result.false_idle_ms == 10.0);
  CHECK(r.result.idle_ms == 0.0);
  CHECK(r.result.of(TC).count == 1);
  CHECK(r.result.of(TC).mean_response_ms() == 10.0);
}

TEST_CASE("a time-limited request blocks only when its data is needed") {
  SECTION("done before the need: in time, limit measured, nobody waits") {
    const Run r = run(bare(), {{Step::io(1, TL, Op::Read, 0, 4096), Step::compute(15), Step::need(1),
                                Step::compute(5)}});
    CHECK(r.result.execution_ms == 20.0);
    CHECK(r.result.false_idle_ms == 0.0);
    CHECK(r.result.tl_needed == 1);
    CHECK(r.result.tl_in_time == 1);
    CHECK(r.result.mean_limit_ms() == 15.0);
  }
  SECTION("still pending at the need: missed, the process blocks until it is done") {
    const Run r = run(bare(), {{Step::io(1, TL, Op::Read, 0, 4096), Step::compute(5), Step::need(1),
                                Step::compute(5)}});
    CHECK(r.result.execution_ms == 15.0);  // waits 5..10
    CHECK(r.result.false_idle_ms == 5.0);
    CHECK(r.result.tl_needed == 1);
    CHECK(r.result.tl_in_time == 0);
    CHECK(r.result.mean_limit_ms() == 5.0);
    CHECK(r.result.of(TL).mean_response_ms() == 10.0);
  }
}

TEST_CASE("a time-noncritical request blocks nobody") {
  const Run r = run(bare(), {{Step::io(1, TNC, Op::Write, 0, 4096), Step::compute(5)}});
  CHECK(r.result.execution_ms == 5.0);
  CHECK(r.result.false_idle_ms == 0.0);
  CHECK(r.result.of(TNC).count == 1);
  CHECK(r.result.last_io_ms == 10.0);  // it still completes, after the process is gone
}

TEST_CASE("false idle time is the CPU idle while a process waits, not idle with nobody waiting") {
  // A waits 0..10 on a TC read while B computes 0..4: the CPU is falsely idle 4..10.
  // Then A computes 10..12 and exits.
  const Run r = run(bare(), {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(2)},
                             {Step::compute(4)}});
  CHECK(r.result.execution_ms == 12.0);
  CHECK(r.result.false_idle_ms == 6.0);
  CHECK(r.result.idle_ms == 0.0);
}

TEST_CASE("context switches and I/O interrupts are charged as stated") {
  FlowConfig c = bare();
  c.system.context_switch_ms = 1.0;
  c.system.io_handler_ms = 0.5;
  // A blocks at 0; B is switched in (1 ms) and runs 1..21; the completion at 10 costs a
  // 0.5 ms handler (B's burst now ends at 21.5), which wakes A at 10.5.
  SECTION("preemption on wake: A preempts B") {
    c.system.preempt_on_wake = true;
    const Run r = run(c, {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(5)}, {Step::compute(20)}});
    // A: switch 10.5..11.5, runs to 16.5, exits; B: switch to 17.5, its last 11 ms to 28.5.
    CHECK(r.result.execution_ms == 28.5);
    CHECK(r.result.context_switches == 3);
    CHECK(r.result.io_interrupts == 1);
    CHECK(r.result.false_idle_ms == 0.0);
  }
  SECTION("no preemption: A waits for B") {
    c.system.preempt_on_wake = false;
    const Run r = run(c, {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(5)}, {Step::compute(20)}});
    // B runs to 21.5, A: switch to 22.5, runs to 27.5.
    CHECK(r.result.execution_ms == 27.5);
    CHECK(r.result.context_switches == 2);
  }
}

TEST_CASE("clock interrupts lengthen the running burst and end a quantum") {
  FlowConfig c = bare();
  c.system.clock_period_ms = 10;
  c.system.clock_handler_ms = 0.5;
  c.system.quantum_ms = 20;
  SECTION("one process: every tick costs 0.5 ms") {
    const Run r = run(c, {{Step::compute(25)}});
    // Ticks at 10 and 20 (each 0.5 ms): 25 ms of work ends at 26.
    CHECK(r.result.execution_ms == 26.0);
    CHECK(r.result.clock_interrupts == 2);
  }
  SECTION("two processes: the first yields after two ticks") {
    const Run r = run(c, {{Step::compute(30)}, {Step::compute(5)}});
    // A: 0..20.5 (ticks at 10, 20), done 19.5 ms of work, yields at 20.5; B runs
    // 20.5..25.5 (no tick inside but at... 30 > 25.5), exits; A runs its last 10.5 ms
    // from 25.5: the tick at 30 costs 0.5, so it ends at 36.5.
    CHECK(r.result.context_switches == 2);
    CHECK(r.result.execution_ms == 36.5);
  }
}

TEST_CASE("FFS read-ahead: a miss is time-critical and reads the next block ahead; using it reads the next") {
  FlowConfig c = bare();
  c.cache_blocks = 16;
  c.files = {FileExtent{0, 3, 1 << 20}};
  const Run r = run(c, {{Step::read(0, 0), Step::compute(20), Step::read(0, 1), Step::compute(20),
                         Step::read(0, 2)}});
  // Block 0 (TC) done at 10, block 1 (TL, issued at 0) at 20; computes 10..30; block 1
  // used at 30 (limit 30, in time) issues block 2 (TL), done at 40; used at 50 (limit 20).
  CHECK(r.result.execution_ms == 50.0);
  CHECK(r.result.of(TC).count == 1);
  CHECK(r.result.of(TL).count == 2);
  CHECK(r.result.tl_needed == 2);
  CHECK(r.result.tl_in_time == 2);
  CHECK(r.result.mean_limit_ms() == 25.0);
  REQUIRE(r.done.size() == 3);
  CHECK(r.done[2].arrival_ms == 30.0);
}

TEST_CASE("the flush daemon wakes every period and writes the dirty blocks of its share of the cache") {
  FlowConfig c = bare();
  c.cache_blocks = 120;
  c.daemon_share = 60;  // 2 slots a wake-up
  c.daemon_period_ms = 1000;
  c.files = {FileExtent{0, 6, 1 << 20}};
  std::vector<Step> writes;
  for (std::uint64_t b = 0; b < 6; ++b) writes.push_back(Step::write(0, b));
  const Run r = run(c, {writes});
  CHECK(r.result.execution_ms == 0.0);  // delayed writes: nobody waits
  REQUIRE(r.done.size() == 6);
  const std::vector<double> arrivals = {1000, 1000, 2000, 2000, 3000, 3000};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(r.done[i].arrival_ms == arrivals[i]);
    CHECK(r.done[i].cls == TNC);
  }
  CHECK(r.result.last_io_ms == 3020.0);
}

TEST_CASE("a file creation is one time-critical write") {
  FlowConfig c = bare();
  c.files = {FileExtent{0, 1, 1 << 20}};
  const Run r = run(c, {{Step::create(0), Step::compute(1)}});
  CHECK(r.result.execution_ms == 11.0);
  CHECK(r.result.of(TC).count == 1);
  REQUIRE(r.done.size() == 1);
  CHECK(r.done[0].op == Op::Write);
  CHECK(r.done[0].offset == (1u << 20));
}

TEST_CASE("the scheduler's decision cost runs on a CPU and delays the dispatch") {
  FlowConfig c = bare();
  c.decision_cost = [](std::size_t n) { return 1.0 * static_cast<double>(n); };
  SECTION("one request: 1 ms to choose, then 10 ms at the drive") {
    const Run r = run(c, {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(5)}});
    CHECK(r.result.decision_ms == 1.0);
    CHECK(r.result.execution_ms == 16.0);
    CHECK(r.result.false_idle_ms == 10.0);  // the CPU chose 0..1, then idled
    CHECK(r.result.of(TC).mean_response_ms() == 11.0);
  }
  SECTION("it takes the CPU from a running process") {
    // B computes 0..20 while A's TC request waits; the choice (1 ms, one queued) runs
    // on CPU 0 as a handler, so B ends at 21; A's request is at the drive 1..11.
    const Run r = run(c, {{Step::io(1, TC, Op::Read, 0, 4096)}, {Step::compute(20)}});
    CHECK(r.done.at(0).completion_ms == 11.0);
    CHECK(r.result.execution_ms == 21.0);
  }
}

TEST_CASE("a free decision changes nothing: charged at 0 ns the run is the uncharged run") {
  auto model = load_model("hp97560");
  auto once = [&](bool charged) {
    FlowConfig c;
    c.cache_blocks = 64;
    c.files = {FileExtent{4096, 64, 0}, FileExtent{400u << 20, 64, 399u << 20}};
    if (charged) c.decision_cost = [](std::size_t) { return 0.0; };
    ProcessFlowSim sim(*model, make_scheduler("sstf", *model), c);
    for (std::uint32_t f = 0; f < 2; ++f) {
      std::vector<Step> s;
      for (std::uint64_t b = 0; b < 64; ++b) {
        s.push_back(Step::read(f, b));
        s.push_back(Step::compute(3));
      }
      sim.add_process(std::make_unique<ScriptProgram>(s));
    }
    return sim.run();
  };
  const FlowResult a = once(false), b = once(true);
  CHECK(a.execution_ms == b.execution_ms);
  CHECK(a.false_idle_ms == b.false_idle_ms);
  CHECK(a.sum_response_ms == b.sum_response_ms);
  CHECK(a.context_switches == b.context_switches);
}

TEST_CASE("two CPUs: false idle time is summed over the CPUs idle while someone waits") {
  FlowConfig c = bare();
  c.system.cpus = 2;
  // A blocks 0..10 on CPU 0; B computes 0..4 on CPU 1. CPU 0 idles falsely 0..10, CPU 1
  // 4..10; A wakes on CPU 0 (the first idle one took the interrupt) and computes 10..12
  // while CPU 1 idles with nobody waiting.
  const Run r = run(c, {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(2)}, {Step::compute(4)}});
  CHECK(r.result.execution_ms == 12.0);
  CHECK(r.result.false_idle_ms == 16.0);
  CHECK(r.result.idle_ms == 2.0);
  CHECK(r.result.context_switches == 0);
}

TEST_CASE("no CPU time is lost when a process is preempted before it started, behind queued handlers") {
  // Three TC requests complete 10 ms apart while each I/O handler takes 15 ms, so the
  // handlers queue; each wake preempts the process given the CPU at the wake before,
  // which has not started yet. Every ms of work, handler and switch must be there.
  FlowConfig c = bare();
  c.system.io_handler_ms = 15;
  c.system.context_switch_ms = 2;
  const Run r = run(c, {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(1)},
                        {Step::io(2, TC, Op::Read, 4096, 4096), Step::compute(1)},
                        {Step::io(3, TC, Op::Read, 8192, 4096), Step::compute(1)},
                        {Step::compute(100)}});
  CHECK(r.result.io_interrupts == 3);
  CHECK(r.result.execution_ms ==
        Approx(103.0 + 3 * 15.0 + 2.0 * static_cast<double>(r.result.context_switches) +
               r.result.false_idle_ms + r.result.idle_ms));
}

TEST_CASE("a process waiting for a cache slot takes the one a finished read frees") {
  // One slot: A's read holds it 0..10; B finds no slot at once and waits, then reads its
  // block into the slot A's read left clean (B's read 10..20). No write ever happens.
  FlowConfig c = bare();
  c.cache_blocks = 1;
  c.files = {FileExtent{0, 1, 1 << 20}, FileExtent{8192, 1, 2 << 20}};
  const Run r = run(c, {{Step::read(0, 0)}, {Step::read(1, 0)}});
  CHECK(r.result.cache_waits == 1);
  CHECK(r.result.execution_ms == 20.0);
}

TEST_CASE("a daemon wake-up inside an I/O handler is not taken for a stuck system") {
  // The only process waits on a request done at 10 whose 5 ms handler spans the
  // daemon's wake-up at 12: nothing is queued or dirty, yet the handler will wake it.
  FlowConfig c = bare();
  c.system.io_handler_ms = 5;
  c.daemon_period_ms = 12;
  const Run r = run(c, {{Step::io(1, TC, Op::Read, 0, 4096), Step::compute(1)}});
  CHECK(r.result.execution_ms == 16.0);
}
