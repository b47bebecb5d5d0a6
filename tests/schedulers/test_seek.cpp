// The seek-based family on hand-built queues: each test pins the behaviour that
// defines the algorithm, citing where it is defined.
#include <algorithm>
#include <random>

#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

void add_all(Scheduler& s, const std::vector<Request>& rs) {
  for (const auto& r : rs) s.add(r);
}

}  // namespace

TEST_CASE("FCFS serves in arrival order, equal arrivals by id (JW sec. 2)", "[seek][fcfs]") {
  auto m = load_model("fixed:ms=1");
  auto s = make("fcfs", *m);
  add_all(*s, {placed(5, 900, 3.0), placed(9, 10, 1.0), placed(2, 500, 2.0), placed(1, 7, 2.0)});
  CHECK(pick_all(*s, at_cylinder(0)) == Ids{9, 1, 2, 5});
  CHECK(make("fifo", *m)->spec() == "fcfs");
}

TEST_CASE("FCFS keeps arrival order while requests come late, leave and are picked",
          "[seek][fcfs]") {
  // A long run mixing in-order adds, late adds (a request the overlap rule held back),
  // removals and picks, against the order a sorted list gives.
  auto m = load_model("fixed:ms=1");
  auto s = make("fcfs", *m);
  std::mt19937_64 rng(3);
  std::vector<std::pair<double, std::uint64_t>> ref;  // (arrival, id), kept sorted
  std::uint64_t next_id = 0;
  double t = 0;
  for (int step = 0; step < 5000; ++step) {
    const unsigned what = rng() % 8;
    if (what < 4) {  // an arrival, now or (one in four) from the past
      t += 1.0;
      const double arrival = what == 0 ? t - static_cast<double>(rng() % 50) : t;
      s->add(placed(next_id, 0, arrival));
      ref.emplace_back(arrival, next_id++);
      std::sort(ref.begin(), ref.end());
    } else if (what == 4 && !ref.empty()) {  // a cancel
      const std::size_t k = rng() % ref.size();
      REQUIRE(s->remove(ref[k].second));
      ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      auto r = s->pick(0.0, at_cylinder(0));
      REQUIRE(r.has_value() == !ref.empty());
      if (r) {
        CHECK(r->id == ref.front().second);
        ref.erase(ref.begin());
      }
    }
    REQUIRE(s->size() == ref.size());
  }
  CHECK_FALSE(s->remove(next_id));
  std::vector<Request> left = s->drain();
  REQUIRE(left.size() == ref.size());
  for (std::size_t i = 0; i < left.size(); ++i) CHECK(left[i].id == ref[i].second);
  CHECK(s->size() == 0);
}

TEST_CASE("SSTF by cylinder takes the nearest cylinder each time (JW sec. 2)", "[seek][sstf]") {
  auto m = hp97560();
  auto s = make("sstf", *m);
  CHECK(s->spec() == "sstf:by=cyl");
  add_all(*s, {placed(1, 90, 0), placed(2, 105, 0), placed(3, 130, 0), placed(4, 20, 0)});
  // From 100: 105 (5 away), then 90 (15; 130 is 25), then 130 (40; 20 is 70), then 20.
  CHECK(pick_all(*s, at_cylinder(100)) == Ids{2, 1, 3, 4});
}

TEST_CASE("SSTF breaks distance ties by arrival, then id", "[seek][sstf][ties]") {
  auto m = hp97560();
  auto s = make("sstf", *m);
  SECTION("equal distance on both sides: the earlier arrival") {
    s->add(placed(1, 95, 2.0));
    s->add(placed(2, 105, 1.0));
    CHECK(s->pick(0, at_cylinder(100))->id == 2);
    auto t = make("sstf", *m);
    t->add(placed(1, 95, 1.0));
    t->add(placed(2, 105, 2.0));
    CHECK(t->pick(0, at_cylinder(100))->id == 1);
  }
  SECTION("same cylinder, same arrival: the lower id") {
    s->add(placed(7, 100, 5.0));
    s->add(placed(3, 100, 5.0));
    s->add(placed(4, 100, 4.0));
    CHECK(pick_all(*s, at_cylinder(100)) == Ids{4, 3, 7});
  }
}

TEST_CASE("SSTF by LBN measures blocks from the end of the last dispatch (DN sec. 5)",
          "[seek][sstf][lbn]") {
  auto m = hp97560();
  auto s = make("sstf:by=lbn", *m);
  // Cylinders deliberately disagree with the block numbers: by=lbn must ignore them.
  s->add(placed(1, 1500, 0, 1000));
  auto first = s->pick(0, at_cylinder(0));  // estimate from cylinder 0: block 0
  REQUIRE(first->id == 1);
  // The head is past block 1015 (16 sectors from 1000). From 1016, 1030 is 14 away and
  // 990 is 26; from 1000 it would have been 30 and 10.
  s->add(placed(2, 3, 0, 990));
  s->add(placed(3, 1900, 0, 1030));
  CHECK(s->pick(0, at_cylinder(1500))->id == 3);
  CHECK(s->pick(0, at_cylinder(1900))->id == 2);
}

TEST_CASE("SSTF by LBN dispatches ascending neighbours as in DN's SSTF log (DN sec. 6)",
          "[seek][sstf][lbn]") {
  auto m = hp97560();
  auto s = make("sstf:by=lbn", *m);
  // DN's log: after sector 31173936 come 31173944, 31173952, 31173960 (8-sector requests).
  auto req8 = [](std::uint64_t id, std::uint64_t lba) {
    Request r = placed(id, 0, 0, lba);
    r.loc.sectors = 8;
    return r;
  };
  s->add(req8(1, 31173936));
  REQUIRE(s->pick(0, at_cylinder(1963))->id == 1);
  s->add(req8(4, 31173960));
  s->add(req8(2, 31173944));
  s->add(req8(9, 22747136));
  s->add(req8(3, 31173952));
  CHECK(pick_all(*s, at_cylinder(0)) == Ids{2, 3, 4, 9});
}

TEST_CASE("LOOK sweeps on and reverses only when nothing lies ahead (JW sec. 2)", "[seek][look]") {
  auto m = hp97560();
  auto s = make("look", *m);
  add_all(*s, {placed(1, 90, 0), placed(2, 105, 0), placed(3, 130, 0), placed(4, 20, 0),
               placed(5, 100, 0)});
  // Up from 100 (its own cylinder first), then reverse at 130 and sweep down.
  HeadState h = at_cylinder(100);
  Ids order;
  for (int i = 0; i < 4; ++i) {
    auto r = s->pick(0, h);
    order.push_back(r->id);
    h = head_at(*r);
  }
  CHECK(order == Ids{5, 2, 3, 1});
  // Now sweeping down at 90: a request above (95) waits for the next upward sweep even
  // though it is nearer than 20.
  s->add(placed(6, 95, 0));
  CHECK(pick_all(*s, h) == Ids{4, 6});
}

TEST_CASE("ELEVATOR names LOOK; SCAN and C-SCAN are algorithms of their own (JW sec. 2)",
          "[seek][look][clook]") {
  auto m = hp97560();
  CHECK(make("elevator", *m)->spec() == "look:by=cyl");
  CHECK(make("scan", *m)->spec() == "scan:by=cyl");
  CHECK(make("c-scan", *m)->spec() == "cscan:by=cyl");
  CHECK(make("c-look", *m)->spec() == "clook:by=cyl");
}

TEST_CASE("C-LOOK sweeps one way and returns to the lowest request (JW sec. 2)", "[seek][clook]") {
  auto m = hp97560();
  auto s = make("clook", *m);
  add_all(*s, {placed(1, 90, 0), placed(2, 105, 0), placed(3, 130, 0), placed(4, 20, 0),
               placed(5, 100, 0)});
  CHECK(pick_all(*s, at_cylinder(100)) == Ids{5, 2, 3, 4, 1});
}

TEST_CASE("C-LOOK by LBN is Hong's C-SCAN: ascending LBN, then from the lowest (Hong sec. 8)",
          "[seek][clook][lbn]") {
  auto m = hp97560();
  auto s = make("clook:by=lbn", *m);
  s->add(placed(1, 0, 0, 5000));
  REQUIRE(s->pick(0, at_cylinder(0))->id == 1);  // head now past block 5015
  add_all(*s, {placed(2, 9, 0, 100), placed(3, 8, 0, 9000), placed(4, 7, 0, 6000),
               placed(5, 6, 0, 4000)});
  CHECK(pick_all(*s, at_cylinder(0)) == Ids{4, 3, 2, 5});
}

TEST_CASE("V(R) penalises reversal by R x cylinders (JW sec. 2, Geist & Daniel)", "[seek][vr]") {
  auto m = hp97560();  // 1964 cylinders: V(0.2) charges 392.8 cylinders for a reversal
  REQUIRE(m->cylinders() == 1964);
  auto moving_up = [&](const std::string& spec) {
    auto s = make(spec, *m);
    s->add(placed(100, 100, 0));
    REQUIRE(s->pick(0, at_cylinder(50))->id == 100);  // moved up from 50 to 100
    return s;
  };
  SECTION("a near request behind, a farther one ahead") {
    // 90 is 10 behind, 150 is 50 ahead.
    for (auto [spec, want] : std::vector<std::pair<std::string, std::uint64_t>>{
             {"vr:r=0", 1}, {"vr:r=0.2", 2}, {"vr:r=1", 2}}) {
      auto s = moving_up(spec);
      s->add(placed(1, 90, 0));
      s->add(placed(2, 150, 0));
      CHECK(s->pick(0, at_cylinder(100))->id == want);
    }
  }
  SECTION("reversing pays when ahead is farther than the penalty") {
    // 95 costs 5 + 392.8 = 397.8 under V(0.2); 600 costs 500. V(1) never reverses early.
    for (auto [spec, want] :
         std::vector<std::pair<std::string, std::uint64_t>>{{"vr:r=0.2", 1}, {"vr:r=1", 2}}) {
      auto s = moving_up(spec);
      s->add(placed(1, 95, 0));
      s->add(placed(2, 600, 0));
      CHECK(s->pick(0, at_cylinder(100))->id == want);
    }
  }
}

TEST_CASE("V(0) dispatches as SSTF and V(1) as LOOK on random queues (JW sec. 2)", "[seek][vr]") {
  auto m = hp97560();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> cyl(0, 1963);
  for (int round = 0; round < 20; ++round) {
    std::vector<Request> rs;
    for (std::uint64_t i = 0; i < 60; ++i) rs.push_back(placed(i, cyl(rng), double(i % 7)));
    HeadState h = at_cylinder(cyl(rng));
    auto v0 = make("vr:r=0", *m), sstf = make("sstf", *m);
    auto v1 = make("vr:r=1", *m), look = make("look", *m);
    for (auto* s : {v0.get(), sstf.get(), v1.get(), look.get()}) add_all(*s, rs);
    CHECK(pick_all(*v0, h) == pick_all(*sstf, h));
    CHECK(pick_all(*v1, h) == pick_all(*look, h));
  }
}

TEST_CASE("SSWT: a request whose wait count reaches the threshold goes first (DN sec. 4)",
          "[seek][sswt]") {
  auto m = hp97560();
  auto s = make("sswt:threshold=3", *m);
  CHECK(s->spec() == "sswt:threshold=3");
  // DN's log (sec. 6): 22747136 overrides the nearer 26964000 once its count is due.
  s->add(placed(1, 0, 0, 27006872));
  REQUIRE(s->pick(0, at_cylinder(0))->id == 1);  // the head is now at block 27006880
  s->add(placed(99, 0, 0, 22747136));          // wait count 0
  std::uint64_t next = 10;
  s->add(placed(next++, 0, 0.5, 26964000));      // nearer than 22747136, arrived later
  Ids order;
  for (int i = 0; i < 4; ++i) {
    s->add(placed(next++, 0, 0, 27006880 + 16 * i));  // nearer still: SSTF's choice
    order.push_back(s->pick(0, at_cylinder(0))->id);
  }
  // Counts of request 99 at the four picks: 0, 1, 2, 3 -> served at the fourth.
  CHECK(order == Ids{11, 12, 13, 99});
}

TEST_CASE("SSWT serves the largest wait count first; threshold 0 is FCFS (DN sec. 4)",
          "[seek][sswt]") {
  auto m = hp97560();
  SECTION("two overdue requests: the one waiting longer") {
    auto s = make("sswt:threshold=1", *m);
    s->add(placed(1, 0, 0, 100));
    s->add(placed(2, 0, 0, 900000));  // count 0
    REQUIRE(s->pick(0, at_cylinder(0))->id == 1);
    s->add(placed(3, 0, 0, 800000));  // count 0; request 2 now has 1
    s->add(placed(4, 0, 0, 120));
    CHECK(s->pick(0, at_cylinder(0))->id == 2);  // overdue, not the nearest (4)
    CHECK(s->pick(0, at_cylinder(0))->id == 3);  // its count reached 1 meanwhile
    CHECK(s->pick(0, at_cylinder(0))->id == 4);
  }
  SECTION("threshold 0") {
    auto s = make("sswt:threshold=0", *m);
    auto f = make("fcfs", *m);
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::uint64_t> lba(0, 2000000);
    for (std::uint64_t i = 0; i < 40; ++i) {
      auto r = placed(i, 0, double(i), lba(rng));
      s->add(r);
      f->add(r);
    }
    CHECK(pick_all(*s, at_cylinder(0)) == pick_all(*f, at_cylinder(0)));
  }
}

TEST_CASE("remove withdraws only held requests, from every seek scheduler", "[seek]") {
  auto m = hp97560();
  for (const char* spec : {"fcfs", "sstf", "sstf:by=lbn", "look", "clook", "vr", "sswt"}) {
    INFO(spec);
    auto s = make(spec, *m);
    add_all(*s, {placed(1, 10, 0, 10), placed(2, 20, 1, 20), placed(3, 30, 2, 30)});
    CHECK(s->remove(2));
    CHECK_FALSE(s->remove(2));
    CHECK_FALSE(s->remove(42));
    CHECK(s->size() == 2);
    auto order = pick_all(*s, at_cylinder(0));
    std::sort(order.begin(), order.end());
    CHECK(order == Ids{1, 3});
    s->add(placed(7, 1, 0));
    CHECK_THROWS_AS(s->add(placed(7, 2, 0)), std::invalid_argument);  // ids are unique
  }
}
