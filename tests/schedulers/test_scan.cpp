// SCAN and C-SCAN against LOOK and C-LOOK: the same dispatch order, but the edge-to-edge
// algorithms send the arm on to the edge of the disk (JW sec. 1: "the disk arm is
// alternately moved from one edge of the disk to the other and back"; sec. 2: C-SCAN
// "when the end of the disk is reached, [seeks] back to the beginning"). The trip is a
// stop on the way to the next request (request.hpp, Travel).
#include <memory>
#include <vector>

#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

struct Picked {
  std::uint64_t id;
  Travel travel;
};

// Picks until empty with the head on each request picked (no time passes).
std::vector<Picked> picks(Scheduler& s, HeadState head) {
  std::vector<Picked> out;
  while (auto r = s.pick(0, head)) {
    out.push_back({r->id, r->travel});
    head = head_at(*r);
  }
  return out;
}

std::vector<std::uint64_t> ids(const std::vector<Picked>& p) {
  std::vector<std::uint64_t> out;
  for (const auto& x : p) out.push_back(x.id);
  return out;
}

std::uint64_t last_block(const DeviceModel& m) { return m.capacity_bytes() / m.sector_bytes() - 1; }

// An edge-to-edge scheduler and its turn-at-the-last-request twin, each having picked
// from cylinder 100 the same requests at cylinders 90, 105, 130 and 20.
struct Swept {
  std::unique_ptr<Scheduler> edge;
  std::vector<Picked> edge_picks, turn_picks;
};
Swept sweep(const char* edge, const char* turn, const DeviceModel& m) {
  Swept w{make(edge, m), {}, {}};
  auto t = make(turn, m);
  for (const auto& r : {placed(1, 90, 0), placed(2, 105, 0), placed(3, 130, 0), placed(4, 20, 0)}) {
    w.edge->add(r);
    t->add(r);
  }
  w.edge_picks = picks(*w.edge, at_cylinder(100));
  w.turn_picks = picks(*t, at_cylinder(100));
  return w;
}

}  // namespace

TEST_CASE("SCAN serves in LOOK's order and runs on to the edge before turning",
          "[seek][scan]") {
  auto m = hp97560();
  const std::int64_t top = m->locate(last_block(*m)).cylinder;
  REQUIRE(top > 1000);
  const Swept w = sweep("scan", "look", *m);
  const auto& s = w.edge_picks;
  const auto& l = w.turn_picks;
  REQUIRE(ids(s) == Ids{2, 3, 1, 4});
  CHECK(ids(l) == ids(s));
  for (const auto& p : l) CHECK(p.travel.empty());  // LOOK turns at the last request
  // SCAN: up through 105 and 130, on to the top edge, then down.
  CHECK(s[0].travel.empty());
  CHECK(s[1].travel.empty());
  REQUIRE(s[2].travel.stops == 1);
  CHECK(m->locate(s[2].travel.lba[0]).cylinder == top);
  CHECK(s[3].travel.empty());
  // Sweeping down from 20 with nothing below: on to cylinder 0, then up again.
  w.edge->add(placed(5, 50, 0));
  auto r = w.edge->pick(0, at_cylinder(20));
  REQUIRE(r);
  CHECK(r->id == 5);
  REQUIRE(r->travel.stops == 1);
  CHECK(m->locate(r->travel.lba[0]).cylinder == 0);
}

TEST_CASE("SCAN turns without a trip when the arm is already at the edge", "[seek][scan]") {
  auto m = hp97560();
  const std::int64_t top = m->locate(last_block(*m)).cylinder;
  auto scan = make("scan", *m);
  scan->add(placed(1, 10, 0));
  auto r = scan->pick(0, at_cylinder(top));
  REQUIRE(r);
  CHECK(r->travel.empty());
}

TEST_CASE("the edge stop is the sector on the edge track the arm reaches first",
          "[seek][scan]") {
  auto m = hp97560();
  const std::uint64_t last = last_block(*m);
  const Location edge = m->locate(last);
  for (const Millis t : {0.0, 3.1, 7.77, 12.5}) {
    HeadState h = at_cylinder(600);
    h.time_ms = t;
    auto scan = make("scan", *m);
    scan->add(placed(1, 10, 0));
    auto r = scan->pick(t, h);
    REQUIRE(r->travel.stops == 1);
    const Location stop = m->locate(r->travel.lba[0]);
    REQUIRE(stop.cylinder == edge.cylinder);
    REQUIRE(stop.head == edge.head);
    // Exhaustive over the edge track: nothing is reached sooner.
    const Millis chosen = m->positioning_ms(h, stop);
    for (std::uint64_t lba = last; lba + 200 > last; --lba) {
      const Location l = m->locate(lba);
      if (l.cylinder != edge.cylinder || l.head != edge.head) break;
      CHECK(m->positioning_ms(h, l) >= chosen);
    }
  }
}

TEST_CASE("C-SCAN runs on to the high edge and back to the low edge between sweeps",
          "[seek][cscan]") {
  auto m = hp97560();
  const std::int64_t top = m->locate(last_block(*m)).cylinder;
  const Swept w = sweep("cscan", "clook", *m);
  const auto& s = w.edge_picks;
  const auto& l = w.turn_picks;
  REQUIRE(ids(s) == Ids{2, 3, 4, 1});
  CHECK(ids(l) == ids(s));
  for (const auto& p : l) CHECK(p.travel.empty());
  CHECK(s[0].travel.empty());
  CHECK(s[1].travel.empty());
  REQUIRE(s[2].travel.stops == 2);  // 130 -> top edge -> cylinder 0 -> 20
  CHECK(m->locate(s[2].travel.lba[0]).cylinder == top);
  CHECK(m->locate(s[2].travel.lba[1]).cylinder == 0);
  CHECK(s[3].travel.empty());

  SECTION("a first request on the low edge needs no stop there") {
    auto c = make("cscan", *m);
    c->add(placed(7, 0, 0));
    auto r = c->pick(0, at_cylinder(500));
    REQUIRE(r->travel.stops == 1);
    CHECK(m->locate(r->travel.lba[0]).cylinder == top);
  }
}

TEST_CASE("SCAN and C-SCAN by LBN stop on the first and last block's tracks",
          "[seek][scan][cscan][lbn]") {
  auto m = hp97560();
  const std::uint64_t last = last_block(*m);
  auto scan = make("scan:by=lbn", *m);
  CHECK(scan->spec() == "scan:by=lbn");
  scan->add(lba_request(*m, 1, 1000, 0));
  CHECK(scan->pick(0, at_cylinder(0))->travel.empty());  // up from block 0
  scan->add(lba_request(*m, 2, 500, 0));
  auto r = scan->pick(0, at_cylinder(0));  // nothing above block 1016: to the end first
  REQUIRE(r->id == 2);
  REQUIRE(r->travel.stops == 1);
  CHECK(m->locate(r->travel.lba[0]).cylinder == m->locate(last).cylinder);

  auto cscan = make("cscan:by=lbn", *m);
  cscan->add(lba_request(*m, 1, 1000, 0));
  cscan->add(lba_request(*m, 2, 500, 0));
  const auto p = picks(*cscan, at_cylinder(0));
  REQUIRE(ids(p) == Ids{2, 1});
  CHECK(p[1].travel.empty());
}
