// The simulator charges a scheduler's stops (request.hpp, Travel) exactly: SCAN's trip to
// the edge is a one-sector read of the edge track's soonest sector, then the request.
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "emulator/sim/simulator.hpp"
#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"
#include "tests/emulator/sim/listed_arrivals.hpp"

using namespace disksched;

namespace {

using Listed = disksched::testing::ListedArrivals;

Arrival read_at(Millis t, std::uint64_t block) {
  Arrival a;
  a.time_ms = t;
  a.offset = block * 512;
  a.length = 4096;
  return a;
}

std::vector<RequestRecord> run(const DeviceModel& m, const std::string& spec) {
  SimConfig cfg;
  cfg.warmup = 0;
  cfg.measured = 2;
  Simulator sim(m, make_scheduler(spec, m), cfg);
  // Up to block 400000, then (the device long idle) down to block 8000.
  Listed arrivals({read_at(0.0, 400000), read_at(200.0, 8000)});
  return sim.run(arrivals).measured;
}

}  // namespace

TEST_CASE("SCAN's trip to the edge costs exactly one read of the soonest edge sector",
          "[sim][scan]") {
  auto m = load_model("hp97560");
  const std::uint64_t last = m->capacity_bytes() / 512 - 1;
  const auto scan = run(*m, "scan");
  const auto look = run(*m, "look");
  REQUIRE(scan.size() == 2);
  REQUIRE(look.size() == 2);

  // The head after the first request, waiting until the second arrives.
  HeadState h = m->service(m->initial_state(), Op::Read, 400000 * 512ull, 4096).end;
  REQUIRE(h.time_ms < 200.0);
  h.time_ms = 200.0;

  // The stop: the sector of the last track that a one-sector read finishes soonest.
  const Location edge = m->locate(last);
  HeadState after_stop;
  after_stop.time_ms = std::numeric_limits<double>::infinity();
  for (std::uint64_t b = last;; --b) {
    const Location l = m->locate(b);
    if (l.cylinder != edge.cylinder || l.head != edge.head) break;
    const HeadState e = m->service(h, Op::Read, b * 512, 512).end;
    if (e.time_ms < after_stop.time_ms) after_stop = e;
  }
  const Cost request = m->service(after_stop, Op::Read, 8000 * 512ull, 4096);

  CHECK(scan[0].travel.stops == 0);
  CHECK(scan[1].travel.stops == 1);
  CHECK(scan[1].start_ms == 200.0);
  CHECK(scan[1].travel_ms == after_stop.time_ms - 200.0);
  CHECK(scan[1].completion_ms == request.end.time_ms);
  CHECK(scan[1].seek_ms == request.seek_ms);

  // LOOK turns at once: no stop, and the same request finishes sooner.
  CHECK(look[1].travel.stops == 0);
  CHECK(look[1].travel_ms == 0.0);
  CHECK(look[1].completion_ms == m->service(h, Op::Read, 8000 * 512ull, 4096).end.time_ms);
  CHECK(look[1].completion_ms < scan[1].completion_ms);
  // The trip out to the last cylinder takes at least its seek.
  CHECK(scan[1].travel_ms > m->seek_ms(edge.cylinder - h.cylinder));
}
