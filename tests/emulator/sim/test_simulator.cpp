// The simulator against queueing theory and its own invariants.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "bench/experiments/workload/workload.hpp"
#include "emulator/sim/simulator.hpp"
#include "emulator/sim/stats.hpp"
#include "predictor/device_model.hpp"
#include "tests/emulator/sim/fifo_scheduler.hpp"

using namespace disksched;
using disksched::test::FifoScheduler;

namespace {

SimResult run_open(const DeviceModel& m, const std::string& workload, double rate,
                   std::uint64_t seed, SimConfig cfg,
                   std::function<void(const RequestRecord&)> obs = {}) {
  Simulator sim(m, std::make_unique<FifoScheduler>(), cfg);
  if (obs) sim.on_complete(std::move(obs));
  auto w = Workload::parse(workload);
  auto stream = w.open_stream(DeviceExtent::of(m), rate, seed);
  return sim.run(*stream);
}

// Closed-loop clients (a workload spec) on a fixed-time model under FIFO.
SimResult run_closed(const std::string& model_spec, const std::string& workload,
                     std::uint64_t warmup, std::uint64_t measured, unsigned depth = 1) {
  auto model = load_model(model_spec);
  SimConfig cfg;
  cfg.depth = depth;
  cfg.warmup = warmup;
  cfg.measured = measured;
  Simulator sim(*model, std::make_unique<FifoScheduler>(), cfg);
  auto clients = Workload::parse(workload).closed_stream(DeviceExtent::of(*model), 1);
  return sim.run(*clients);
}

}  // namespace

TEST_CASE("FCFS with a fixed service time: M/D/1 mean wait (Pollaczek-Khinchine)", "[sim]") {
  auto model = load_model("fixed:ms=10");
  for (double rate : {30.0, 70.0}) {
    const double rho = rate * 10.0 / 1000.0;
    const double pk_wait = rho * 10.0 / (2.0 * (1.0 - rho));  // M/D/1: rho S / 2(1 - rho)
    SimConfig cfg;
    cfg.warmup = 1000;
    cfg.measured = 5000;
    std::vector<double> waits, utils;
    for (std::uint64_t rep = 0; rep < 20; ++rep) {
      auto r = run_open(*model, "uniform", rate, Rng::derive(7, rep), cfg);
      REQUIRE_FALSE(r.saturated);
      RunSummary s = summarize(r);
      waits.push_back(s.mean_wait_ms);
      utils.push_back(s.utilization);
      CHECK(s.mean_service_ms == Approx(10.0));
    }
    Estimate w = replicate(waits);
    INFO("rate " << rate << ": PK " << pk_wait << " ms, simulated " << w.mean << " +- "
                 << w.half_width);
    CHECK(std::fabs(w.mean - pk_wait) <= w.half_width);
    CHECK(w.half_width < 0.1 * pk_wait);  // the interval is narrow enough to mean something
    CHECK(replicate(utils).mean == Approx(rho).epsilon(0.03));
  }
}

TEST_CASE("every request completes exactly once, in a consistent order", "[sim]") {
  // A small device so that writes overlap and the queue's ordering rule engages.
  auto model = load_model("fixed:ms=1,capacity=65536");
  for (std::size_t depth : {1u, 4u}) {
    SimConfig cfg;
    cfg.depth = depth;
    cfg.warmup = 200;
    cfg.measured = 2000;
    std::map<std::uint64_t, int> seen;
    std::vector<RequestRecord> order;
    auto r = run_open(*model, "uniform:size=4k,reads=0.5", 900.0, 3, cfg,
                      [&](const RequestRecord& x) {
                        seen[x.seq]++;
                        order.push_back(x);
                      });
    REQUIRE(r.measured_completed == 2000);
    CHECK(r.measured.size() == 2000);
    for (const auto& [seq, n] : seen) CHECK(n == 1);
    CHECK(seen.size() == r.completions);
    CHECK(r.completions <= r.arrivals);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto& x = order[i];
      CHECK(x.dispatch_ms >= x.arrival_ms);
      CHECK(x.start_ms >= x.dispatch_ms);
      CHECK(x.completion_ms == Approx(x.start_ms + 1.0));
      if (i > 0) CHECK(x.start_ms >= order[i - 1].completion_ms);  // one at a time
      CHECK(x.queue_len >= 1);
    }
    // Measured requests are the ones that arrived 200..2199, by seq.
    CHECK(r.measured.front().seq == 200);
    CHECK(r.measured.back().seq == 2199);
  }
}

TEST_CASE("same seed, same records; another seed, other records", "[sim]") {
  auto model = load_model("fixed:ms=5");
  SimConfig cfg;
  cfg.warmup = 100;
  cfg.measured = 500;
  auto a = run_open(*model, "seq:p=0.5", 150, 11, cfg);
  auto b = run_open(*model, "seq:p=0.5", 150, 11, cfg);
  auto c = run_open(*model, "seq:p=0.5", 150, 12, cfg);
  REQUIRE(a.measured.size() == b.measured.size());
  bool same = true;
  for (std::size_t i = 0; i < a.measured.size(); ++i) {
    same = same && a.measured[i].arrival_ms == b.measured[i].arrival_ms &&
           a.measured[i].completion_ms == b.measured[i].completion_ms &&
           a.measured[i].offset == b.measured[i].offset;
  }
  CHECK(same);
  CHECK(a.measured[0].offset != c.measured[0].offset);
}

TEST_CASE("closed loop: one client cycles through think and service exactly", "[sim]") {
  const SimResult r = run_closed("fixed:ms=10", "closed:n=1,think=5ms", 10, 100);
  RunSummary s = summarize(r);
  CHECK(s.mean_ms == Approx(10.0));
  CHECK(s.max_ms == Approx(10.0));
  // Each request arrives 15 ms after the previous one.
  for (std::size_t i = 1; i < r.measured.size(); ++i)
    CHECK(r.measured[i].arrival_ms - r.measured[i - 1].arrival_ms == Approx(15.0));
}

TEST_CASE("closed loop: N clients without think time see N service times", "[sim]") {
  const SimResult r = run_closed("fixed:ms=2", "closed:n=16", 100, 1000);
  RunSummary s = summarize(r);
  CHECK(s.mean_ms == Approx(32.0));
  CHECK(s.utilization == Approx(1.0));
  CHECK(s.throughput_per_s == Approx(500.0).epsilon(0.01));
  // A completion and its client's next request happen at one instant: the scheduler
  // chooses among all 16.
  CHECK(s.mean_queue_len == Approx(16.0));
}

TEST_CASE("closed loop, stream=shared: one sequential stream N deep, as fio's iodepth",
          "[sim]") {
  // own (the default): each client continues its own stream, so 4 clients make 4 streams;
  // shared: every request continues the last one issued, by whichever client.
  for (const char* stream : {"own", "shared"}) {
    const SimResult r = run_closed(
        "fixed:ms=2", fmt::format("closed:n=4,p=1,size=4096,stream={}", stream), 0, 64, 4);
    std::vector<std::uint64_t> offsets;
    for (const auto& x : r.measured) offsets.push_back(x.offset);
    std::sort(offsets.begin(), offsets.end());
    std::size_t runs = 1;
    for (std::size_t i = 1; i < offsets.size(); ++i) runs += offsets[i] != offsets[i - 1] + 4096;
    INFO(stream);
    CHECK(runs == (std::string(stream) == "own" ? 4u : 1u));
  }
  // The canonical spec names it only when set, so the keys of older specs are unchanged.
  CHECK(Workload::parse("closed:n=4").spec().find("stream") == std::string::npos);
  CHECK(Workload::parse("closed:n=4,stream=shared").spec().find(",stream=shared") !=
        std::string::npos);
}

TEST_CASE("depth N keeps N requests at the device", "[sim]") {
  const SimResult r = run_closed("fixed:ms=2", "closed:n=8", 10, 200, 4);
  // 8 clients: 4 at the device, so a request is dispatched ~4 services before it starts.
  double lead = 0;
  for (const auto& x : r.measured) lead += x.start_ms - x.dispatch_ms;
  CHECK(lead / static_cast<double>(r.measured.size()) == Approx(6.0).epsilon(0.02));
  CHECK(summarize(r).mean_ms == Approx(16.0));
}

TEST_CASE("overload is detected instead of running forever", "[sim]") {
  auto model = load_model("fixed:ms=10");
  SimConfig cfg;
  cfg.warmup = 100;
  cfg.measured = 400;
  cfg.max_queue = 200;
  auto r = run_open(*model, "uniform", 300.0, 1, cfg);  // rho = 3
  CHECK(r.saturated);
  CHECK_FALSE(r.saturation.empty());
  SimConfig cfg2 = cfg;
  cfg2.max_queue = 0;
  cfg2.keep_warm_max = 50;
  auto r2 = run_open(*model, "uniform", 300.0, 1, cfg2);
  CHECK(r2.saturated);
  CHECK(r2.arrivals == 550);
  // Slightly overloaded (rho = 1.1): the measured requests do complete within the
  // keep-warm allowance, but the queue grows through the window.
  SimConfig cfg3;
  cfg3.warmup = 500;
  cfg3.measured = 3000;
  auto r3 = run_open(*model, "uniform", 110.0, 1, cfg3);
  CHECK(r3.saturated);
  CHECK_THAT(r3.saturation, Catch::Matchers::Contains("queue grew"));
  // And just below capacity (rho = 0.9) it is not saturated.
  CHECK_FALSE(run_open(*model, "uniform", 90.0, 1, cfg3).saturated);
}

namespace {

// Picks the lowest offset: shows which requests the scheduler could see.
class LowestOffset final : public Scheduler {
 public:
  std::string spec() const override { return "test-lowest-offset"; }
  void add(const Request& r) override { q_.push_back(r); }
  bool remove(std::uint64_t) override { return false; }
  std::optional<Request> pick(Millis, const HeadState&) override {
    if (q_.empty()) return std::nullopt;
    auto best = std::min_element(q_.begin(), q_.end(), [](const Request& a, const Request& b) {
      return a.offset < b.offset;
    });
    Request r = *best;
    q_.erase(best);
    return r;
  }
  std::size_t size() const override { return q_.size(); }
  std::vector<Request> drain() override { return std::move(q_); }

 private:
  std::vector<Request> q_;
};

// A burst of requests at one instant, offsets descending.
class BurstAtOnce final : public ArrivalStream {
 public:
  std::optional<Arrival> next() override {
    if (i_ == 8) return std::nullopt;
    Arrival a;
    a.time_ms = 100.0;
    a.offset = (8 - i_++) * 4096ull;
    a.length = 4096;
    return a;
  }

 private:
  std::uint64_t i_ = 0;
};

}  // namespace

TEST_CASE("a burst reaches the scheduler whole before it chooses", "[sim]") {
  auto model = load_model("fixed:ms=1");
  SimConfig cfg;
  cfg.warmup = 0;
  cfg.measured = 8;
  Simulator sim(*model, std::make_unique<LowestOffset>(), cfg);
  BurstAtOnce burst;
  auto r = sim.run(burst);
  REQUIRE(r.measured.size() == 8);
  // The idle device gets the lowest offset of the whole burst first, then the rest in order.
  std::vector<RequestRecord> by_start = r.measured;
  std::sort(by_start.begin(), by_start.end(),
            [](const auto& a, const auto& b) { return a.start_ms < b.start_ms; });
  for (std::size_t i = 0; i < by_start.size(); ++i) CHECK(by_start[i].offset == (i + 1) * 4096);
  CHECK(by_start.front().queue_len == 8);
}

namespace {

// Passes requests through a FIFO and keeps the class and limit each one came with.
class ClassRecorder final : public Scheduler {
 public:
  explicit ClassRecorder(std::vector<std::pair<IoClass, Millis>>& seen) : seen_(seen) {}
  std::string spec() const override { return "test-class-recorder"; }
  void add(const Request& r) override {
    seen_.emplace_back(r.cls, r.limit_ms);
    fifo_.add(r);
  }
  bool remove(std::uint64_t id) override { return fifo_.remove(id); }
  std::optional<Request> pick(Millis now, const HeadState& h) override { return fifo_.pick(now, h); }
  std::size_t size() const override { return fifo_.size(); }
  std::vector<Request> drain() override { return fifo_.drain(); }

 private:
  std::vector<std::pair<IoClass, Millis>>& seen_;
  FifoScheduler fifo_;
};

class TwoArrivals final : public ArrivalStream {
 public:
  std::optional<Arrival> next() override {
    if (n_ == 2) return std::nullopt;
    Arrival a;
    a.time_ms = n_;
    a.offset = 4096 * n_;
    a.length = 4096;
    a.cls = n_ == 0 ? IoClass::TimeCritical : IoClass::TimeLimited;
    a.limit_ms = n_ == 0 ? 0.0 : 25.0;
    ++n_;
    return a;
  }

 private:
  int n_ = 0;
};

}  // namespace

// Issue 14: a trace's classes reach the scheduler (priority runs as LOOK otherwise).
TEST_CASE("an arrival's class and limit reach the scheduler and the record", "[sim]") {
  auto model = load_model("fixed:ms=10");
  std::vector<std::pair<IoClass, Millis>> seen;
  SimConfig cfg;
  cfg.warmup = 0;
  cfg.measured = 0;
  Simulator sim(*model, std::make_unique<ClassRecorder>(seen), cfg);
  TwoArrivals arrivals;
  const SimResult r = sim.run(arrivals);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == std::make_pair(IoClass::TimeCritical, 0.0));
  CHECK(seen[1] == std::make_pair(IoClass::TimeLimited, 25.0));
  REQUIRE(r.measured.size() == 2);
  CHECK(r.measured[1].cls == IoClass::TimeLimited);
  CHECK(r.measured[1].limit_ms == 25.0);
}
