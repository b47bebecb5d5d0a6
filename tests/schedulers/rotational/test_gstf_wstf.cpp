// GSTF(G) and WSTF(T_max) (Huang & Chiueh; that seed survives only as keywords, so
// these pin down our documented reconstruction: see schedulers/rotational/gstf.cpp
// and wstf.cpp).
#include <vector>

#include "tests/schedulers/rotational/fixtures.hpp"

namespace {

std::vector<std::uint64_t> serve(Scheduler& s, const FakeDisk& disk, HeadState h, Millis now) {
  std::vector<std::uint64_t> ids;
  while (auto r = s.pick(now, h)) {
    ids.push_back(r->id);
    h = disk.service(h, r->op, r->offset, r->length).end;
  }
  return ids;
}

using Ids = std::vector<std::uint64_t>;

}  // namespace

TEST_CASE("GSTF serves the current group before a nearer request in the next (Huang & Chiueh, "
          "reconstructed)",
          "[rotational][gstf]") {
  FakeDisk disk;  // seek 2 + 0.1 d ms, 1 ms per sector
  const HeadState head = head_at(5, 0, 0.0);
  const Request a = make_request(disk, 1, disk.lba(8, 0, 0), 0.0);   // group 0: 10 ms away
  const Request b = make_request(disk, 2, disk.lba(12, 0, 5), 0.0);  // group 1: 5 ms away
  REQUIRE(disk.positioning_ms(head, a.loc) == Approx(10.0));
  REQUIRE(disk.positioning_ms(head, b.loc) == Approx(5.0));
  auto g = make_scheduler("gstf:group=10", disk);
  g->add(a);
  g->add(b);
  CHECK(serve(*g, disk, head, 0.0) == Ids{1, 2});
  auto s = make_scheduler("stf", disk);
  s->add(a);
  s->add(b);
  CHECK(serve(*s, disk, head, 0.0) == Ids{2, 1});
}

TEST_CASE("GSTF visits groups in scan order, shortest access time within each",
          "[rotational][gstf]") {
  FakeDisk disk;
  auto g = make_scheduler("gstf:group=10", disk);
  g->add(make_request(disk, 1, disk.lba(15, 0, 0), 0.0));  // group 1
  g->add(make_request(disk, 2, disk.lba(55, 0, 0), 0.0));  // group 5
  g->add(make_request(disk, 3, disk.lba(75, 0, 0), 0.0));  // group 7
  g->add(make_request(disk, 4, disk.lba(57, 1, 3), 0.0));  // group 5
  g->add(make_request(disk, 5, disk.lba(52, 0, 9), 0.0));  // group 5
  // From group 3 upward: group 5 (three requests, by access time), group 7, then the
  // sweep turns and reaches group 1.
  const auto order = serve(*g, disk, head_at(35, 0, 0.0), 0.0);
  REQUIRE(order.size() == 5);
  CHECK(Ids(order.begin() + 3, order.end()) == Ids{3, 1});
  HeadState h = head_at(35, 0, 0.0);
  // Within group 5, each pick is the shortest access among what is left of the group.
  std::vector<Request> g5 = {make_request(disk, 2, disk.lba(55, 0, 0), 0.0),
                             make_request(disk, 4, disk.lba(57, 1, 3), 0.0),
                             make_request(disk, 5, disk.lba(52, 0, 9), 0.0)};
  for (int k = 0; k < 3; ++k) {
    auto best = std::min_element(g5.begin(), g5.end(), [&](const Request& x, const Request& y) {
      return disk.positioning_ms(h, x.loc) < disk.positioning_ms(h, y.loc);
    });
    CHECK(order[k] == best->id);
    h = disk.service(h, best->op, best->offset, best->length).end;
    g5.erase(best);
  }
}

TEST_CASE("GSTF admit=all lets arrivals join the current group; admit=frozen does not",
          "[rotational][gstf]") {
  FakeDisk disk;
  for (const char* admit : {"all", "frozen"}) {
    INFO(admit);
    auto g = make_scheduler(std::string("gstf:group=10,admit=") + admit, disk);
    g->add(make_request(disk, 1, disk.lba(3, 0, 1), 0.0));
    g->add(make_request(disk, 2, disk.lba(7, 0, 4), 0.0));
    g->add(make_request(disk, 3, disk.lba(25, 0, 0), 0.0));  // group 2
    HeadState h = head_at(5, 0, 0.0);
    Ids order;
    for (int k = 0; k < 2; ++k) {
      auto r = g->pick(h.time_ms, h);
      order.push_back(r->id);
      h = disk.service(h, r->op, r->offset, r->length).end;
      if (k == 0) g->add(make_request(disk, 4, disk.lba(4, 0, 8), h.time_ms));  // group 0
    }
    const auto rest = serve(*g, disk, h, h.time_ms);
    order.insert(order.end(), rest.begin(), rest.end());
    REQUIRE(order.size() == 4);
    // Request 2 goes first (4 ms). all: the newcomer joins group 0 and is served (it is
    // nearer than request 1) before the head moves to group 2. frozen: group 0 ends
    // with request 1; the newcomer waits for the next visit, after group 2.
    if (std::string(admit) == "all")
      CHECK(order == Ids{2, 4, 1, 3});
    else
      CHECK(order == Ids{2, 1, 3, 4});
  }
}

TEST_CASE("WSTF ranks by T_real * (1 - T_wait / T_max) (Huang & Chiueh, reconstructed)",
          "[rotational][wstf]") {
  FakeDisk disk;
  const HeadState head = head_at(0, 0, 0.5);
  const Millis now = 5000.0;
  // near: T_real 4.5 ms, just arrived; far: T_real 9.5 ms, waited W. With T_max = 1000
  // far goes first iff 9.5 (1 - W/1000) < 4.5, i.e. W > 526.3 ms.
  for (double wait : {520.0, 530.0}) {
    INFO("far waited " << wait << " ms");
    auto s = make_scheduler("wstf:tmax=1000ms", disk);
    s->add(make_request(disk, 1, disk.lba(0, 0, 0), now - wait));  // far
    s->add(make_request(disk, 2, disk.lba(20, 0, 5), now));        // near
    CHECK(s->pick(now, head)->id == (wait > 526.3 ? 1u : 2u));
  }
}

TEST_CASE("WSTF serves overdue requests first, oldest first", "[rotational][wstf]") {
  FakeDisk disk;
  const HeadState head = head_at(0, 0, 0.5);
  auto s = make_scheduler("wstf:tmax=100ms", disk);
  s->add(make_request(disk, 1, disk.lba(90, 0, 3), 850.0));  // waited 150: overdue
  s->add(make_request(disk, 2, disk.lba(70, 1, 6), 700.0));  // waited 300: overdue, older
  s->add(make_request(disk, 3, disk.lba(0, 0, 1), 990.0));   // near, fresh
  CHECK(serve(*s, disk, head, 1000.0) == Ids{2, 1, 3});
}
