// SATFUF(N), SATFDF(N, D) and SATFGDF(N, D): forcing the oldest once it is too old
// (Jacobson & Wilkes 1991, sec. 5.1, Fig. 6-9).
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "schedulers/rotational/area_heuristic.hpp"
#include "tests/schedulers/rotational/fixtures.hpp"

using namespace disksched::rotational;

namespace {

// The fake disk: 10 sectors of 1 ms per track (T = 10 ms), seek 2 + 0.1 d ms. From
// cylinder 0, head 0, at t = 0 (angle 0):
//   z  (cyl 50, sector 2), the oldest: seek 7 ms, then 5 ms of rotation: T(h->z) = 12.
//   r4 (cyl 0, sector 6): T(h->r4) = 6; it ends at 7, and z is then reached at 22 ms.
//   r2 (cyl 50, sector 7): T(h->r2) = 7; it ends at 8 on z's track, z starts at 12.
struct Scene {
  FakeDisk disk;
  HeadState head = head_at(0, 0, 0.0);
  Request z = make_request(disk, 10, disk.lba(50, 0, 2), 0.0);
  Request r4 = make_request(disk, 14, disk.lba(0, 0, 6), 150.0);
  Request r2 = make_request(disk, 12, disk.lba(50, 0, 7), 150.0);

  Scene() {
    REQUIRE(disk.positioning_ms(head, z.loc) == Approx(12.0));
    REQUIRE(disk.positioning_ms(head, r4.loc) == Approx(6.0));
    REQUIRE(disk.positioning_ms(head, r2.loc) == Approx(7.0));
    REQUIRE(z_start_after(r4) == Approx(22.0));
    REQUIRE(z_start_after(r2) == Approx(12.0));
  }
  // When z's transfer starts if `r` is served first from `head`.
  Millis z_start_after(const Request& r) const {
    const HeadState e = disk.service(head, r.op, r.offset, r.length).end;
    return e.time_ms + disk.positioning_ms(e, z.loc);
  }
  std::unique_ptr<Scheduler> make(const std::string& spec) const {
    auto s = make_scheduler(spec, disk);
    s->add(z);
    s->add(r4);
    s->add(r2);
    return s;
  }
  // Serves everything from `head` at `now` (time advancing with service); returns the
  // ids in order and the time each transfer started.
  std::vector<std::pair<std::uint64_t, Millis>> serve(Scheduler& s, Millis now) const {
    std::vector<std::pair<std::uint64_t, Millis>> out;
    HeadState h = head;
    while (auto r = s.pick(now, h)) {
      const Cost c = disk.service(h, r->op, r->offset, r->length);
      out.emplace_back(r->id, h.time_ms + c.positioning_ms());
      now += c.service_ms();
      h = c.end;
    }
    return out;
  }
};

std::vector<std::uint64_t> ids(const std::vector<std::pair<std::uint64_t, Millis>>& v) {
  std::vector<std::uint64_t> out;
  for (const auto& [id, t] : v) out.push_back(id);
  return out;
}

}  // namespace

TEST_CASE("before the oldest is too old, the forcing algorithms are SATF (JW sec. 5.1)",
          "[rotational][forcing]") {
  Scene sc;
  for (const char* spec : {"satfuf:age=100ms", "satfdf:age=100ms,d=1", "satfgdf:age=100ms,d=1"}) {
    INFO(spec);
    auto s = sc.make(spec);
    CHECK(s->pick(50.0, sc.head)->id == sc.r4.id);  // z has waited 50 ms only
  }
}

TEST_CASE("SATFUF slots in only what does not delay the oldest (JW sec. 5.1, Fig. 6)",
          "[rotational][forcing][satfuf]") {
  Scene sc;
  auto s = sc.make("satfuf:age=100ms");
  // z has waited 200 ms: forced. r4 is the shortest access but would push z from
  // 12 ms to 22 ms; r2 fits in front of z without moving it.
  const auto order = sc.serve(*s, 200.0);
  REQUIRE(ids(order) == std::vector<std::uint64_t>{sc.r2.id, sc.z.id, sc.r4.id});
  CHECK(order[1].second == Approx(12.0));  // z starts exactly when it could from the start
}

TEST_CASE("SATFUF(N) forces the N oldest, nearest of them first (JW sec. 5.1)",
          "[rotational][forcing][satfuf]") {
  FakeDisk disk;
  const HeadState head = head_at(0, 0, 0.0);
  auto s = make_scheduler("satfuf:n=2,age=100ms", disk);
  // Two old requests far away and one young request right under the head.
  s->add(make_request(disk, 1, disk.lba(90, 0, 5), 0.0));   // oldest
  s->add(make_request(disk, 2, disk.lba(60, 0, 9), 10.0));  // second oldest
  s->add(make_request(disk, 3, disk.lba(0, 0, 1), 190.0));  // young, 1 ms away
  // Forced {1, 2}. From cylinder 0 at t = 0, request 2 is reached at 9 ms (seek 8 ms
  // to angle 0.8, then 1 ms), request 1 at 15 ms (seek 11, wait 4): 2 is the target.
  // Request 3 would end at 2 ms; from there request 2 starts only at 19 ms, so 3 is
  // not slotted in. Then request 1 (5 ms from 2's end) before 3 (11 ms).
  REQUIRE(disk.positioning_ms(head, make_request(disk, 2, disk.lba(60, 0, 9), 0).loc) ==
          Approx(9.0));
  auto first = s->pick(200.0, head);
  CHECK(first->id == 2);
  HeadState h = disk.service(head, first->op, first->offset, first->length).end;
  auto second = s->pick(210.0, h);
  CHECK(second->id == 1);  // the other forced request, before the young one
  CHECK(s->pick(230.0, disk.service(h, second->op, second->offset, second->length).end)->id == 3);
}

TEST_CASE("SATFDF fills D rotations of slack greedily and meets the deadline (JW sec. 5.1)",
          "[rotational][forcing][satfdf]") {
  Scene sc;
  auto s = sc.make("satfdf:age=100ms,d=1");
  // Deadline: 0 + T(h->z) + 1 rotation = 22 ms. r4 (shortest) still lets z start at
  // 22; then r2 (from r4's end: access 10 ms, ends 18, z at 22) also fits.
  const auto order = sc.serve(*s, 200.0);
  REQUIRE(ids(order) == std::vector<std::uint64_t>{sc.r4.id, sc.r2.id, sc.z.id});
  CHECK(order[2].second == Approx(22.0));
  // With no slack (d=0) the deadline is 12 ms and only r2 fits before z, as SATFUF.
  auto tight = sc.make("satfdf:age=100ms,d=0");
  CHECK(ids(sc.serve(*tight, 200.0)) == std::vector<std::uint64_t>{sc.r2.id, sc.z.id, sc.r4.id});
}

TEST_CASE("SATFGDF picks the feasible request with the largest area heuristic (JW Fig. 7-9)",
          "[rotational][forcing][satfgdf]") {
  Scene sc;
  AreaHeuristic area(sc.disk);
  const Millis deadline = 22.0;
  auto h_of = [&](const Request& r) {
    const HeadState e = sc.disk.service(sc.head, r.op, r.offset, r.length).end;
    return area.value(e.cylinder - sc.z.loc.cylinder, deadline - e.time_ms);
  };
  // Both r4 and r2 let z start by the deadline; r2 ends on z's cylinder with 14 ms to
  // go, r4 fifty cylinders away with 15 ms: the heuristic prefers r2, SATFDF r4.
  REQUIRE(h_of(sc.r2) > h_of(sc.r4));
  auto gdf = sc.make("satfgdf:age=100ms,d=1");
  CHECK(gdf->pick(200.0, sc.head)->id == sc.r2.id);
  auto df = sc.make("satfdf:age=100ms,d=1");
  CHECK(df->pick(200.0, sc.head)->id == sc.r4.id);
}

TEST_CASE("SATFGDF guide=exact ranks by the exact area, guide=end by the soonest end",
          "[rotational][forcing][satfgdf]") {
  // Same scene: r2 ends on z's cylinder at 8 ms, r4 fifty cylinders away at 7 ms. The
  // exact area prefers r2 as the quadratic does; without guidance r4 (ends first) goes.
  Scene sc;
  AreaHeuristic area(sc.disk);
  auto exact_of = [&](const Request& r) {
    const HeadState e = sc.disk.service(sc.head, r.op, r.offset, r.length).end;
    return area.area(e.cylinder - sc.z.loc.cylinder, (22.0 - e.time_ms) / area.sector_ms());
  };
  REQUIRE(exact_of(sc.r2) > exact_of(sc.r4));
  CHECK(sc.make("satfgdf:age=100ms,d=1,guide=exact")->pick(200.0, sc.head)->id == sc.r2.id);
  CHECK(sc.make("satfgdf:age=100ms,d=1,guide=end")->pick(200.0, sc.head)->id == sc.r4.id);
  CHECK(sc.make("satfgdf:age=100ms,d=1,guide=end")->spec() == "satfgdf:n=1,age=100ms,d=1,guide=end");
}

TEST_CASE("SATFGDF serves the forced request when nothing else fits (JW Fig. 7)",
          "[rotational][forcing][satfgdf]") {
  Scene sc;
  auto s = make_scheduler("satfgdf:age=100ms,d=0", sc.disk);
  s->add(sc.z);
  s->add(sc.r4);  // does not fit in 0 rotations of slack
  CHECK(s->pick(200.0, sc.head)->id == sc.z.id);
}

TEST_CASE("the forced request starts by its deadline on random HP 97560 queues (JW sec. 5.1)",
          "[rotational][forcing]") {
  // Whatever the queue, once z is the target SATFDF/SATFGDF never let it start later
  // than t + T(h->z) + D rotations, and SATFUF never later than t + T(h->z).
  auto model = load_model("hp97560");
  const Millis T = model->rotation_ms();
  for (const char* spec : {"satfuf:age=0ms", "satfdf:age=0ms,d=2", "satfgdf:age=0ms,d=2"}) {
    INFO(spec);
    const double d = std::string(spec).find("d=2") != std::string::npos ? 2.0 : 0.0;
    std::mt19937_64 rng(17);
    for (int trial = 0; trial < 20; ++trial) {
      auto s = make_scheduler(spec, *model);
      std::vector<Request> reqs;
      for (std::uint64_t i = 1; i <= 60; ++i) {
        reqs.push_back(make_request(*model, i, rng() % 2600000, static_cast<Millis>(i), 16));
        s->add(reqs.back());
      }
      // Request 1 is the oldest; with age=0ms it is forced at the first pick.
      HeadState head = model->initial_state();
      head.time_ms = 100.0;
      head.cylinder = static_cast<std::int64_t>(rng() % 1964);
      const Millis limit = head.time_ms + model->positioning_ms(head, reqs[0].loc) + d * T;
      while (auto r = s->pick(head.time_ms, head)) {
        const Cost c = model->service(head, r->op, r->offset, r->length);
        if (r->id == 1) {
          CHECK(head.time_ms + c.positioning_ms() <= limit + 1e-6);
          break;
        }
        head = c.end;
      }
    }
  }
}

TEST_CASE("the area heuristic: exact small case, symmetry and the quadratic (JW Fig. 8-9)",
          "[rotational][satfgdf]") {
  FakeDisk disk;  // tau = 1 ms, S = 10, a(d) = 2 + 0.1 d sectors for d > 0, a(0) = 0
  AreaHeuristic area(disk);
  // R = 5 sectors, z on r's cylinder: cylinder 0 gives min(10, 5) = 5 sectors; x = +-1
  // gives 5 - 2 * 2.1 = 0.8, +-2: 0.6, +-3: 0.4, +-4: 0.2, +-5: 0. Total 9.
  CHECK(area.area(0, 5.0) == Approx(9.0));
  CHECK(area.area(2, 5.0) == Approx(8.8));
  // A whole rotation of room and more on every nearby cylinder: capped at S each.
  CHECK(area.area(0, 40.0) > area.area(0, 20.0));
  auto model = load_model("hp97560");
  AreaHeuristic hp(*model);
  // On the HP 97560 the exact area is not a perfect parabola: where both legs are
  // long seeks (linear in distance) the cost of the cylinders between r and z does
  // not depend on dc, so the area can even rise a little with dc. The fit captures
  // the trend JW describe: centred on z's cylinder, falling away from it.
  for (double R : {40.0, 100.0, 150.0, 300.0}) {
    INFO("R = " << R << " sectors");
    CHECK(hp.area(37, R) == Approx(hp.area(-37, R)));
    CHECK(hp.area(0, R) > hp.area(1200, R));
    const auto q = hp.fit(static_cast<std::int64_t>(R));
    CHECK(q.q0 > 0.0);
    CHECK(q.q2 < 0.0);  // centred on dc = 0, falling away from it
  }
  CHECK(hp.value(10, -1.0) == 0.0);  // past the deadline: nothing reachable
}
