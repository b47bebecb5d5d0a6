// One arrival sequence through the simulator (its event loop around the dispatch core,
// the device as head source) and through the filter's assembly of the same parts, whose
// dispatches an emulated device serves as diskemu serves them (travel stops first, as the
// filter reads them). The filter's assembly is taken twice: its dispatch core alone in the
// simulator's exact model time (LiveCore: the dispatch core with the live head tracker),
// and the Dispatcher the filter runs, built from the filter's keys as nbdkit hands them
// over (refinement on, as by default), each request carried in its record through
// enter/leave as a worker does, on a clock of whole nanoseconds. With sched-delta=0us (the
// device being exact), both must dispatch the same requests in the same order and see the
// same service times: the reproduction runs the daemon's decision code. (It found one
// difference: the head tracker adopted period fits that differed from the exact period by
// rounding, which flipped exact ties; rotation_estimator.hpp now ignores changes it cannot
// tell from noise.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <vector>

#include "daemon/filter/dispatcher.hpp"
#include "daemon/filter/filter_config.hpp"
#include "emulator/device/virtual_device.hpp"
#include "emulator/sim/simulator.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

struct Served {
  std::uint64_t id = 0;
  Millis dispatch_ms = 0.0;
  Millis start_ms = 0.0;
  Millis completion_ms = 0.0;
};

std::vector<Arrival> poisson(const DeviceModel& m, double rate_per_s, std::size_t n,
                             std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rate_per_s / 1000.0);
  std::uniform_int_distribution<std::uint64_t> slot(0, m.capacity_bytes() / 8192 - 1);
  std::bernoulli_distribution write(0.3);
  std::vector<Arrival> v;
  Millis t = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    t += gap(rng);
    // On whole nanoseconds: the filter's clock, so both worlds see the same arrival.
    const Millis at = static_cast<double>(std::llround(t * 1e6)) / 1e6;
    v.push_back({at, write(rng) ? Op::Write : Op::Read, slot(rng) * 8192, 8192});
  }
  return v;
}

class Replay : public ArrivalStream {
 public:
  explicit Replay(const std::vector<Arrival>& v) : v_(v) {}
  std::optional<Arrival> next() override {
    if (i_ == v_.size()) return std::nullopt;
    return v_[i_++];
  }

 private:
  const std::vector<Arrival>& v_;
  std::size_t i_ = 0;
};

// In completion order.
std::vector<Served> through_simulator(const std::string& spec, const char* model,
                                      const std::vector<Arrival>& arrivals, unsigned depth) {
  auto m = load_model(model);
  SimConfig cfg;
  cfg.depth = depth;
  cfg.warmup = 0;
  cfg.measured = arrivals.size();
  cfg.max_growth = 0;
  Simulator sim(*m, make_scheduler(spec, *m), cfg);
  std::vector<Served> out;
  sim.on_complete([&](const RequestRecord& r) {
    out.push_back({r.seq, r.dispatch_ms, r.start_ms, r.completion_ms});
  });
  Replay replay(arrivals);
  const SimResult res = sim.run(replay);
  REQUIRE_FALSE(res.saturated);
  return out;
}

// In completion order: the filter's dispatch core (LiveCore: the one dispatch core with the
// live head tracker) decides in exact model time, a VirtualDevice (as diskemu plays it) serves.
std::vector<Served> through_live_core(const std::string& spec, const char* model,
                                   const std::vector<Arrival>& arrivals, unsigned depth) {
  auto m = load_model(model);
  auto s = make_scheduler(spec, *m);
  LiveCore::Options o;
  o.depth = depth;
  o.fixed_delta = 0.0;
  LiveCore core(std::move(m), std::move(s), o);
  VirtualDevice device(load_model(model));
  const std::uint32_t sb = device.model().sector_bytes();

  struct Done {
    Millis t;
    std::uint64_t id;
    Millis start;
    bool operator>(const Done& d) const { return t > d.t; }
  };
  std::priority_queue<Done, std::vector<Done>, std::greater<Done>> pending;
  std::vector<Served> out;
  std::vector<std::uint64_t> dispatched;
  auto send = [&](Millis now) {
    for (const std::uint64_t id : dispatched) {
      const RequestRecord& r = core.record(id);
      std::optional<Millis> start;
      for (const std::uint64_t lba : r.travel) {
        const Service st = device.serve(now, Op::Read, lba * sb, sb);
        if (!start) start = st.start_ms;
      }
      const Service sv = device.serve(now, r.op, r.offset, r.length);
      pending.push({sv.completion_ms, id, start.value_or(sv.start_ms)});
    }
    dispatched.clear();
  };
  std::size_t next = 0;
  while (next < arrivals.size() || !pending.empty()) {
    if (!pending.empty() && (next == arrivals.size() || pending.top().t <= arrivals[next].time_ms)) {
      const Done d = pending.top();
      pending.pop();
      const RequestRecord& r = core.complete(d.id, d.t, true, dispatched);
      out.push_back({r.seq, r.dispatch_ms, d.start, d.t});
      send(d.t);
    } else {
      const Arrival& a = arrivals[next++];
      core.arrive(RequestRecord::arriving(a.op, a.offset, a.length), a.time_ms, dispatched);
      send(a.time_ms);
    }
  }
  return out;
}

// What the filter's clock reads at `ms`: whole nanoseconds.
std::int64_t clock_at(Millis ms) { return std::llround(ms * 1e6); }

// In completion order: the filter's Dispatcher decides, a VirtualDevice (as diskemu plays
// it) serves. One thread plays every worker: Dispatcher::queue is enter() without the
// wait, and a request is at the device once its waiter is granted.
std::vector<Served> through_filter(const std::string& spec, const char* model,
                                   const std::vector<Arrival>& arrivals, unsigned depth) {
  FilterConfig config;
  const KeyParsers& keys = portable_key_parsers();
  REQUIRE(config.set("sched", spec, keys));
  REQUIRE(config.set("sched-geometry", model, keys));
  REQUIRE(config.set("sched-depth", std::to_string(depth), keys));
  REQUIRE(config.set("sched-delta", "0us", keys));
  std::unique_ptr<DeviceModel> m = config.validate();
  auto s = make_scheduler(config.sched, *m);
  const Dispatcher::Options o = config.dispatcher_options(m->capacity_bytes());

  std::int64_t clock_ns = 0;
  Dispatcher filter(std::move(m), std::move(s), o, [&] { return clock_ns; });
  VirtualDevice device(load_model(model));
  const std::uint32_t sb = device.model().sector_bytes();

  // A worker's request: its record and where it waits.
  struct Worker {
    LiveRecord rec;
    Dispatcher::Waiter waiter;
  };
  std::deque<Worker> workers;      // stable addresses: the dispatcher points into them
  std::vector<Worker*> waiting;
  struct Done {
    Millis t;
    Worker* w;
    Millis start;
    bool operator>(const Done& d) const { return t > d.t; }
  };
  std::priority_queue<Done, std::vector<Done>, std::greater<Done>> pending;
  std::vector<Served> out;
  // Serves what the last event dispatched (at most one: one arrival, or one slot freed).
  auto send = [&](Millis now) {
    std::size_t sent = 0;
    for (auto it = waiting.begin(); it != waiting.end();) {
      Worker* w = *it;
      if (w->waiter.granted.load() == 0) {
        ++it;
        continue;
      }
      it = waiting.erase(it);
      ++sent;
      std::optional<Millis> start;
      for (const std::uint64_t lba : w->rec.core.travel) {
        const Service st = device.serve(now, Op::Read, lba * sb, sb);
        if (!start) start = st.start_ms;
      }
      const Service sv = device.serve(now, w->rec.core.op, w->rec.core.offset, w->rec.core.length);
      pending.push({sv.completion_ms, w, start.value_or(sv.start_ms)});
    }
    REQUIRE(sent <= 1);
  };
  std::size_t next = 0;
  while (next < arrivals.size() || !pending.empty()) {
    if (!pending.empty() && (next == arrivals.size() || pending.top().t <= arrivals[next].time_ms)) {
      const Done d = pending.top();
      pending.pop();
      clock_ns = clock_at(d.t);
      filter.leave(d.w->rec, true);
      const LiveRecord& r = d.w->rec;
      REQUIRE(r.complete_ns == clock_ns);
      out.push_back({r.id(), r.core.dispatch_ms, d.start, r.core.completion_ms});
      send(d.t);  // the device keeps its own time
    } else {
      const Arrival& a = arrivals[next++];
      clock_ns = clock_at(a.time_ms);
      Worker& w = workers.emplace_back();
      w.rec = LiveRecord::arriving(a.op, a.offset, a.length, 0, {});
      filter.queue(w.rec, w.waiter);
      waiting.push_back(&w);
      send(a.time_ms);
    }
  }
  REQUIRE(filter.snapshot().stats.completed == arrivals.size());
  return out;
}

void same(const std::vector<Served>& sim, const std::vector<Served>& live) {
  REQUIRE(sim.size() == live.size());
  for (std::size_t i = 0; i < sim.size(); ++i) {
    INFO("completion " << i);
    REQUIRE(sim[i].id == live[i].id);
    REQUIRE(sim[i].dispatch_ms == Approx(live[i].dispatch_ms).margin(1e-9));
    REQUIRE(sim[i].start_ms == Approx(live[i].start_ms).margin(1e-9));
    REQUIRE(sim[i].completion_ms == Approx(live[i].completion_ms).margin(1e-9));
  }
}

// The same to the filter's whole nanoseconds, up to where the runs part: the clock's
// rounding may break an exact tie (two requests that cost the same to the last bit in the
// simulator: mirror positions) the other way, and the head then ends elsewhere. Where the
// runs part it must be such a tie: the two requests swap places at the same instants.
// Returns how many completions agree, in order.
std::size_t same_to_the_ns(const std::vector<Served>& sim, const std::vector<Served>& live) {
  REQUIRE(sim.size() == live.size());
  auto same_times = [&](std::size_t i) {
    INFO("completion " << i);
    REQUIRE(sim[i].dispatch_ms == Approx(live[i].dispatch_ms).margin(1e-6));
    REQUIRE(sim[i].start_ms == Approx(live[i].start_ms).margin(1e-6));
    REQUIRE(sim[i].completion_ms == Approx(live[i].completion_ms).margin(1e-6));
  };
  for (std::size_t i = 0; i < sim.size(); ++i) {
    same_times(i);
    if (sim[i].id == live[i].id) continue;
    INFO("completion " << i << ": a tie broken the other way");
    REQUIRE(i + 1 < sim.size());
    REQUIRE(sim[i].id == live[i + 1].id);
    REQUIRE(sim[i + 1].id == live[i].id);
    same_times(i + 1);
    return i;
  }
  return sim.size();
}

}  // namespace

TEST_CASE("the simulator and the filter's assembly dispatch alike and serve alike",
          "[sim][filter][core]") {
  struct Case {
    const char* spec;
    const char* model;
    double rate;
    unsigned depth;
  };
  const Case cases[] = {
      {"fcfs", "hp97560", 30, 1},         {"asatf:w=30", "hp97560", 65, 1},
      {"satf", "hp97560-full", 60, 1},    {"sstf", "hp97560", 50, 1},
      {"scan", "hp97560", 45, 1},         {"cscan", "hp97560", 45, 1},
      {"asatf:w=30", "hp97560", 65, 4},   {"look", "hp97560", 50, 3},
      {"satf", "mems", 1500, 1},          {"zsptf", "mems", 1500, 1},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.spec << " on " << c.model << " at " << c.rate << "/s, depth " << c.depth) {
      auto m = load_model(c.model);
      const auto arrivals = poisson(*m, c.rate, 1500, 7);
      const auto sim = through_simulator(c.spec, c.model, arrivals, c.depth);
      same(sim, through_live_core(c.spec, c.model, arrivals, c.depth));
      const auto live = through_filter(c.spec, c.model, arrivals, c.depth);
      const std::size_t agreed = same_to_the_ns(sim, live);
      if (agreed < sim.size())
        WARN("the filter's clock broke an exact tie the other way after " << agreed
             << " completions; they agreed to there");
      // The queue was not trivial: somebody waited behind somebody else.
      std::size_t reordered = 0;
      for (std::size_t i = 1; i < sim.size(); ++i) reordered += sim[i].id < sim[i - 1].id;
      if (std::string(c.spec) != "fcfs") REQUIRE(reordered > 10);
    }
  }
}
