// SATF and ASATF(w): their defining behaviour on hand-built queues
// (Jacobson & Wilkes 1991, sec. 4.2 and 5.3; Hong et al. 2003, eq. 7).
#include <random>
#include <vector>

#include "schedulers/rotational/asatf.hpp"
#include "tests/schedulers/rotational/fixtures.hpp"

using namespace disksched::rotational;

// The fake disk: 10 sectors per track, 1 ms per sector (T = 10 ms), seek 2 + 0.1 d ms.

TEST_CASE("SATF goes by access time, not by seek distance (JW sec. 4.2)", "[rotational][satf]") {
  FakeDisk disk;
  const HeadState head = head_at(0, 0, 0.5);  // platter at angle 0.05: sector 0 just passed
  // A: the head's own track, sector 0: no seek, but a whole rotation less half a sector.
  const Request a = make_request(disk, 1, disk.lba(0, 0, 0), 0.0);
  // B: 20 cylinders away (seek 4 ms), sector 5 arrives 0.5 ms after the seek ends.
  const Request b = make_request(disk, 2, disk.lba(20, 0, 5), 0.0);
  REQUIRE(disk.positioning_ms(head, a.loc) == Approx(9.5));
  REQUIRE(disk.positioning_ms(head, b.loc) == Approx(4.5));
  for (const char* spec : {"satf", "sptf", "stf", "satf:search=scan"}) {
    INFO(spec);
    auto s = make_scheduler(spec, disk);
    s->add(a);
    s->add(b);
    CHECK(s->pick(0.5, head)->id == 2);  // SSTF by cylinder would take A
    CHECK(s->pick(0.5, head)->id == 1);
    CHECK_FALSE(s->pick(0.5, head).has_value());
  }
}

TEST_CASE("SATF is greedy: every pick has the shortest access time from the head (JW sec. 4.2)",
          "[rotational][satf]") {
  auto model = load_model("hp97560");
  std::mt19937_64 rng(3);
  for (std::size_t n : {5u, 40u, 300u}) {
    auto s = make_scheduler("satf", *model);
    std::vector<Request> held;
    for (std::size_t i = 0; i < n; ++i) {
      held.push_back(make_request(*model, i + 1, rng() % 2600000, 0.0, 16));
      s->add(held.back());
    }
    HeadState head = model->initial_state();
    while (!held.empty()) {
      const auto r = s->pick(head.time_ms, head);
      REQUIRE(r.has_value());
      Millis shortest = 1e30;
      for (const auto& h : held) shortest = std::min(shortest, model->positioning_ms(head, h.loc));
      REQUIRE(model->positioning_ms(head, r->loc) == shortest);
      held.erase(std::find_if(held.begin(), held.end(), [&](const Request& x) { return x.id == r->id; }));
      head = model->service(head, r->op, r->offset, r->length).end;
    }
  }
}

TEST_CASE("ASATF(w) trades access time against age: M = w*T_age - T_A/tau (JW sec. 5.3)",
          "[rotational][asatf]") {
  FakeDisk disk;  // tau = 1 ms
  const HeadState head = head_at(0, 0, 0.5);
  const Millis now = 10000.0;
  // Near: T_A = 4.5 ms = 4.5 sectors; far: T_A = 9.5 ms = 9.5 sectors. Far is older by
  // `gap` ms. ASATF(30) takes far first exactly when 30 * gap / 1000 > 9.5 - 4.5,
  // i.e. gap > 166.67 ms.
  const double threshold_ms = 1000.0 * (9.5 - 4.5) / 30.0;
  for (double gap : {threshold_ms - 1.0, threshold_ms + 1.0}) {
    INFO("far request older by " << gap << " ms");
    auto s = make_scheduler("asatf:w=30", disk);
    s->add(make_request(disk, 1, disk.lba(0, 0, 0), now - 200.0 - gap));  // far, older
    s->add(make_request(disk, 2, disk.lba(20, 0, 5), now - 200.0));      // near
    const auto first = s->pick(now, head);
    CHECK(first->id == (gap > threshold_ms ? 1u : 2u));
  }
  // Hong's form, t_eff = t_pos - (w/1000) t_wait: with w = 5 the far one wins once it
  // is older by more than (9.5 - 4.5) / 0.005 = 1000 ms.
  for (double gap : {999.0, 1001.0}) {
    INFO("form=hong, far request older by " << gap << " ms");
    auto s = make_scheduler("asptf:w=5,form=hong", disk);
    s->add(make_request(disk, 1, disk.lba(0, 0, 0), now - 1500.0 - gap));
    s->add(make_request(disk, 2, disk.lba(20, 0, 5), now - 1500.0));
    CHECK(s->pick(now, head)->id == (gap > 1000.0 ? 1u : 2u));
  }
}

TEST_CASE("ASATF spans SATF (w = 0) to FCFS (w -> infinity) (JW sec. 5.3)", "[rotational][asatf]") {
  auto model = load_model("hp97560");
  std::mt19937_64 rng(11);
  std::vector<Request> reqs;
  for (std::uint64_t i = 1; i <= 200; ++i)
    reqs.push_back(make_request(*model, i, rng() % 2600000, static_cast<Millis>(i), 16));
  auto order = [&](const char* spec) {
    auto s = make_scheduler(spec, *model);
    for (const auto& r : reqs) s->add(r);
    std::vector<std::uint64_t> ids;
    HeadState head = model->initial_state();
    head.time_ms = 1000.0;
    while (auto r = s->pick(head.time_ms, head)) {
      ids.push_back(r->id);
      head = model->service(head, r->op, r->offset, r->length).end;
    }
    return ids;
  };
  CHECK(order("asatf:w=0") == order("satf"));
  // w = 1e6 sectors/s: 1 ms of age outweighs 208 ms of access time, more than any
  // access on this disk takes, so the arrival order (1 ms apart) decides.
  std::vector<std::uint64_t> fcfs;
  for (const auto& r : reqs) fcfs.push_back(r.id);
  CHECK(order("asatf:w=1000000") == fcfs);
  const auto satf = order("satf");
  const auto aged = order("asatf:w=30");
  CHECK(aged != satf);
  CHECK(aged != fcfs);
}

TEST_CASE("ASATF's JW form needs a sector time; Hong's form works on MEMS",
          "[rotational][asatf]") {
  auto mems = load_model("mems");
  REQUIRE_FALSE(mems->sector_time_ms() > 0.0);
  CHECK_THROWS_WITH(make_scheduler("asatf:w=30", *mems), Catch::Contains("form=hong"));
  auto s = make_scheduler("asatf:w=5,form=hong", *mems);
  std::mt19937_64 rng(5);
  const std::uint64_t sectors = mems->capacity_bytes() / mems->sector_bytes();
  for (std::uint64_t i = 1; i <= 50; ++i) s->add(make_request(*mems, i, rng() % (sectors - 16), 0.0, 16));
  HeadState head = mems->initial_state();
  std::size_t served = 0;
  while (auto r = s->pick(head.time_ms, head)) {
    head = mems->service(head, r->op, r->offset, r->length).end;
    ++served;
  }
  CHECK(served == 50);
}
