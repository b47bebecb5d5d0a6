// Scheduler cost at queue lengths 16, 256, 1024 and 4096 on the HP 97560 and MEMS
// models (issue 3: an ASATF pick at 1024 queued requests in 1 us or less, at 16 in
// 100 ns or less; Hong et al. paid 5.1-7.1 us per queued request for SPTF/ASPTF on a
// 700 MHz PIII, about 5 ms per pick at 1024).
//
//   pick   - one pick followed by adding a fresh request, so the queue length stays
//            constant (the steady state of a busy device: one arrival per dispatch).
//            An upper bound on the pick alone; add_remove shows what the add costs.
//   add_remove - add one request to a queue of that length and withdraw it again.
//   queue_cycle - RequestQueue push + pick + complete at that many unfinished requests:
//            what the overlap rule adds around the scheduler.
//
// Schedulers are built by spec through the registry, so every family is measured the
// same way; a model or an algorithm that does not exist yet is reported as skipped.
// SATF and ASATF run the same exact search as in the simulator and the daemon
// (schedulers/rotational/access_index.hpp): a bound pass over a compact array up to
// 24 requests, JW's cell search beyond, x columns on MEMS.
//
// Numbers in README.md (Benchmarks) come from
//   build/bench/schedulers/bench_schedulers --benchmark_filter='pick/.*/(satf|asatf)/'
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// (medians, CPU time, run when the machine's load average is below 1).
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "predictor/device_model.hpp"
#include "schedulers/queue.hpp"
#include "schedulers/registry.hpp"

namespace {

using namespace disksched;

constexpr std::size_t kPool = 8192;

struct Setup {
  std::unique_ptr<DeviceModel> model;
  std::unique_ptr<Scheduler> scheduler;
  std::vector<Request> pool;  // random 8 KB requests over the whole device
  std::uint64_t next_id = 0;
  std::size_t next = 0;
  Millis now = 0;
  HeadState head;

  // A fresh request from the pool, with a new id and arrival time.
  Request fresh() {
    Request r = pool[next++ % kPool];
    r.id = next_id++;
    now += 0.01;
    r.arrival_ms = now;
    return r;
  }
};

// Builds the model and scheduler and queues `n` requests; false (after telling the
// benchmark why) when either does not exist yet.
bool prepare(benchmark::State& state, Setup& s, const char* model, const char* spec,
             std::size_t n) {
  try {
    s.model = load_model(model);
    s.scheduler = make_scheduler(spec, *s.model);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return false;
  }
  std::mt19937_64 rng(42);
  const std::uint64_t blocks = s.model->capacity_bytes() / s.model->sector_bytes();
  std::uniform_int_distribution<std::uint64_t> lba(0, blocks - 16);
  std::uniform_int_distribution<int> cls(0, 2);
  s.pool.reserve(kPool);
  for (std::size_t i = 0; i < kPool; ++i) {
    Request r;
    r.offset = lba(rng) * s.model->sector_bytes();
    r.length = 16 * s.model->sector_bytes();
    r.cls = static_cast<IoClass>(cls(rng));
    r.loc = s.model->locate(r.offset / s.model->sector_bytes(), 16, r.op);
    s.pool.push_back(r);
  }
  s.head = s.model->initial_state();
  for (std::size_t i = 0; i < n; ++i) s.scheduler->add(s.fresh());
  return true;
}

void pick(benchmark::State& state, const char* model, const char* spec) {
  Setup s;
  const auto n = static_cast<std::size_t>(state.range(0));
  if (!prepare(state, s, model, spec, n)) return;
  for (auto _ : state) {
    auto r = s.scheduler->pick(s.now, s.head);
    // The head moves onto the request; time moves on by a typical service time, so a
    // rotational scheduler sees a different platter angle every pick.
    s.head.cylinder = r->loc.cylinder;
    s.head.head = r->loc.head;
    s.head.y = r->loc.y;
    s.head.y_dir = r->loc.y_dir;
    s.head.time_ms = s.now += 7.919;
    s.scheduler->add(s.fresh());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["queue"] = static_cast<double>(n);
}

void add_remove(benchmark::State& state, const char* model, const char* spec) {
  Setup s;
  const auto n = static_cast<std::size_t>(state.range(0));
  if (!prepare(state, s, model, spec, n)) return;
  for (auto _ : state) {
    Request r = s.fresh();
    s.scheduler->add(r);
    benchmark::DoNotOptimize(s.scheduler->remove(r.id));
  }
  state.SetItemsProcessed(state.iterations());
}

// The RequestQueue around a scheduler (the overlap rule's bookkeeping): one arrival,
// one dispatch and one completion at a constant number of unfinished requests.
void queue_cycle(benchmark::State& state, const char* model, const char* spec) {
  Setup s;
  const auto n = static_cast<std::size_t>(state.range(0));
  if (!prepare(state, s, model, spec, 0)) return;
  RequestQueue q(std::move(s.scheduler), *s.model);
  for (std::size_t i = 0; i < n; ++i) q.push(s.fresh());
  for (auto _ : state) {
    auto r = q.pick(s.now, s.head);
    q.complete(r->id, s.now);
    q.push(s.fresh());
  }
  state.SetItemsProcessed(state.iterations());
}

#define SCHED_BENCH(fn, model, spec, label) \
  BENCHMARK_CAPTURE(fn, label, model, spec)->Arg(16)->Arg(256)->Arg(1024)->Arg(4096)

SCHED_BENCH(pick, "hp97560", "fcfs", hp97560/fcfs);
SCHED_BENCH(pick, "hp97560", "sstf", hp97560/sstf);
SCHED_BENCH(pick, "hp97560", "clook", hp97560/clook);
SCHED_BENCH(pick, "hp97560", "satf", hp97560/satf);
SCHED_BENCH(pick, "hp97560", "asatf", hp97560/asatf);
// A drive of today: 474,517 cylinders (the seek bound tables are per cylinder).
SCHED_BENCH(pick, "sata7200-8tb", "satf", sata7200-8tb/satf);
SCHED_BENCH(pick, "sata7200-8tb", "asatf", sata7200-8tb/asatf);
SCHED_BENCH(pick, "mems", "fcfs", mems/fcfs);
SCHED_BENCH(pick, "mems", "sstf", mems/sstf);
SCHED_BENCH(pick, "mems", "clook", mems/clook);
SCHED_BENCH(pick, "mems", "satf", mems/satf);
// Hong eq. 7 form with his w = 5 (the MEMS sled has no sector time for JW's form).
SCHED_BENCH(pick, "mems", "asatf:form=hong,w=5", mems/asatf);
SCHED_BENCH(pick, "mems", "zsptf", mems/zsptf);

SCHED_BENCH(add_remove, "hp97560", "fcfs", hp97560/fcfs);
SCHED_BENCH(add_remove, "hp97560", "sstf", hp97560/sstf);
SCHED_BENCH(add_remove, "hp97560", "clook", hp97560/clook);
SCHED_BENCH(add_remove, "hp97560", "satf", hp97560/satf);
SCHED_BENCH(add_remove, "hp97560", "asatf", hp97560/asatf);
SCHED_BENCH(add_remove, "mems", "satf", mems/satf);
SCHED_BENCH(add_remove, "mems", "asatf:form=hong,w=5", mems/asatf);
SCHED_BENCH(add_remove, "mems", "zsptf", mems/zsptf);

SCHED_BENCH(queue_cycle, "hp97560", "fcfs", hp97560/fcfs);

}  // namespace

// 0.1 s per case unless --benchmark_min_time says otherwise: the whole default run
// stays well under a minute on one busy core.
int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string min_time = "--benchmark_min_time=0.1";
  bool given = false;
  for (int i = 1; i < argc; ++i) given |= std::string(argv[i]).rfind("--benchmark_min_time", 0) == 0;
  if (!given) args.insert(args.begin() + 1, min_time.data());
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
