// Ganger & Patt's class-aware schedulers (GP sec. 6) on hand-built queues.
#include <algorithm>

#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

constexpr auto kCritical = IoClass::TimeCritical;
constexpr auto kLimited = IoClass::TimeLimited;
constexpr auto kLow = IoClass::TimeNoncritical;

Request req(std::uint64_t id, std::int64_t cyl, Millis arrival, IoClass cls,
            std::uint64_t lba = 0) {
  return placed(id, cyl, arrival, lba == 0 ? static_cast<std::uint64_t>(cyl) * 1368 : lba, 0, cls);
}

}  // namespace

TEST_CASE("priority: critical and time-limited before noncritical (GP sec. 6.1)",
          "[priority]") {
  auto m = hp97560();
  auto s = make("priority", *m);
  CHECK(s->spec() == "priority:variant=1,timeout=500ms,queues=2,high=sstf,low=look,expired=alternate");
  s->add(req(1, 110, 0, kLow));
  s->add(req(2, 500, 0, kCritical));
  s->add(req(3, 300, 0, kLimited));
  s->add(req(4, 120, 0, kLow));
  // High queue by shortest seek from 100: 300 then 500. Then the low elevator from 500:
  // nothing above, so down: 120, 110.
  CHECK(pick_all(*s, at_cylinder(100)) == Ids{3, 2, 4, 1});
}

TEST_CASE("priority: the high queue serves one cylinder in ascending block order (GP sec. 6.1)",
          "[priority]") {
  auto m = hp97560();
  auto s = make("priority", *m);
  s->add(req(1, 200, 0, kCritical, 273700));
  s->add(req(2, 200, 1, kCritical, 273620));
  s->add(req(3, 200, 2, kLimited, 273660));
  CHECK(pick_all(*s, at_cylinder(0)) == Ids{2, 3, 1});
}

TEST_CASE("Priority #1 resumes the interrupted sweep, #2 restarts at the nearest (GP sec. 6.1)",
          "[priority]") {
  auto m = hp97560();
  for (auto [variant, want] : std::vector<std::pair<std::string, Ids>>{
           {"1", Ids{12, 13, 14}}, {"2", Ids{14, 13, 12}}}) {
    INFO("variant " << variant);
    auto s = make("priority:variant=" + variant, *m);
    for (std::uint64_t i = 1; i <= 4; ++i) s->add(req(10 + i, 100 * static_cast<std::int64_t>(i), 0, kLow));
    auto first = s->pick(0, at_cylinder(0));
    REQUIRE(first->id == 11);  // the low sweep starts upward from 0: cylinder 100
    s->add(req(99, 1500, 1, kCritical));
    auto urgent = s->pick(1, head_at(*first));
    REQUIRE(urgent->id == 99);  // interrupts the sweep; the head is now at 1500
    // #1 returns to its place (after 100, upward): 200, 300, 400. #2 restarts at the
    // request nearest 1500 (400) and sweeps on: nothing above, so down: 300, 200.
    CHECK(pick_all(*s, head_at(*urgent)) == want);
  }
}

TEST_CASE("priority low=clook sweeps the low queue one way", "[priority]") {
  auto m = hp97560();
  auto s = make("priority:low=clook", *m);
  for (std::int64_t c : {300, 100, 200}) s->add(req(static_cast<std::uint64_t>(c), c, 0, kLow));
  CHECK(pick_all(*s, at_cylinder(150)) == Ids{200, 300, 100});
}

TEST_CASE("priority timeouts: a timed-out request goes ahead of the high queue (GP sec. 6.3)",
          "[priority][timeout]") {
  auto m = hp97560();
  for (const char* spec : {"priority:timeout=50000us", "priority:timeout=0.05s", "priority:timeout=50ms"}) {
    INFO(spec);
    auto s = make(spec, *m);
    s->add(req(1, 1900, 0, kLow));
    s->add(req(2, 10, 49, kCritical));
    CHECK(s->pick(49, at_cylinder(0))->id == 2);  // waited 49 ms < 50: not yet
    s->add(req(3, 11, 50, kCritical));
    CHECK(s->pick(50, at_cylinder(10))->id == 1);  // waited 50 ms: timed out, first
    CHECK(s->pick(50, at_cylinder(1900))->id == 3);
  }
}

TEST_CASE("priority: timed-out requests take turns with critical ones; expired=first lets a flood "
          "of them starve a critical request",
          "[priority][timeout]") {
  // A background writer's flood: 20 noncritical requests, all past the 50 ms timeout at
  // 100 ms, then one critical read arrives.
  auto m = hp97560();
  auto build = [&](const std::string& spec) {
    auto s = make(spec, *m);
    for (std::uint64_t i = 1; i <= 20; ++i) s->add(req(i, 100 + static_cast<std::int64_t>(i), 0, kLow));
    s->add(req(99, 1500, 100, kCritical));
    return s;
  };
  auto position_of_critical = [](Scheduler& s) {
    const Ids order = pick_all(s, at_cylinder(0), 100);
    return std::find(order.begin(), order.end(), 99) - order.begin();
  };
  // Alternate (the default): one timed-out request (the oldest), then the critical one.
  auto alternate = build("priority:timeout=50ms");
  CHECK(position_of_critical(*alternate) == 1);
  // First: the critical read waits behind all twenty.
  auto first = build("priority:timeout=50ms,expired=first");
  CHECK(position_of_critical(*first) == 20);
  // Turns are one each: critical, timed out, critical, timed out.
  auto turns = build("priority:timeout=50ms");
  turns->add(req(98, 1600, 100, kCritical));
  const Ids order = pick_all(*turns, at_cylinder(0), 100);
  REQUIRE(order.size() == 22);
  CHECK(Ids(order.begin(), order.begin() + 4) == Ids{1, 99, 2, 98});
}

TEST_CASE("priority expired=mix moves a timed-out request into the high queue (GP sec. 6.3)",
          "[priority][timeout]") {
  auto m = hp97560();
  auto build = [&](const std::string& spec) {
    return holding(spec, *m, {req(1, 1000, 0, kLow), req(2, 10, 40, kLow)});  // old and far, young and near
  };
  // Without a timeout the elevator takes the near one first.
  CHECK(pick_all(*build("priority:timeout=0"), at_cylinder(0)) == Ids{2, 1});
  // At 60 ms request 1 has waited past its 50 ms timeout: it is high priority now and,
  // being alone there, goes before the low queue.
  auto s = build("priority:timeout=50ms,expired=mix");
  CHECK(s->pick(60, at_cylinder(0))->id == 1);
  // Among high requests shortest seek decides: a critical request nearer the head goes
  // before a timed-out one.
  auto t = build("priority:timeout=50ms,expired=mix");
  t->add(req(3, 5, 55, kCritical));
  CHECK(pick_all(*t, at_cylinder(0), 60) == Ids{3, 1, 2});
}

TEST_CASE("priority queues=3: past half its timeout a request outranks the low queue "
          "(GP sec. 6.3, 3Q)",
          "[priority][timeout]") {
  auto m = hp97560();
  auto build = [&](const std::string& spec) {
    return holding(spec, *m, {req(1, 1000, 0, kLow), req(2, 10, 30, kLow)});
  };
  // At 60 ms: request 1 waited 60 >= 100/2, request 2 only 30.
  CHECK(build("priority:timeout=100ms")->pick(60, at_cylinder(0))->id == 2);
  CHECK(build("priority:timeout=100ms,queues=3")->pick(60, at_cylinder(0))->id == 1);
  // The middle queue still yields to the high one, until the full timeout.
  auto s = build("priority:timeout=100ms,queues=3");
  s->add(req(3, 5, 60, kCritical));
  CHECK(s->pick(60, at_cylinder(0))->id == 3);
  s->add(req(4, 6, 100, kCritical));
  CHECK(s->pick(100, at_cylinder(5))->id == 1);  // fully timed out: ahead of the high queue
  CHECK(s->pick(100, at_cylinder(1000))->id == 4);
  CHECK_THROWS_AS(make("priority:queues=3,timeout=0", *m), SpecError);
}

TEST_CASE("priority high=satf orders the high queue by positioning time", "[priority][satf]") {
  auto m = hp97560();
  const auto& disk = dynamic_cast<const DiskModel&>(*m);
  HeadState head;
  head.cylinder = 100;
  // On cylinder 101 the sector that costs most to reach, on 110 the one that costs least.
  auto extreme = [&](std::int64_t cyl, bool worst) {
    Request best;
    Millis best_ms = worst ? -1 : 1e9;
    for (std::uint32_t s = 0; s < 72; s += 3) {
      Request r = disk_request(disk, s, cyl, 0, 0, s, kCritical);
      Millis t = m->positioning_ms(head, r.loc);
      if (worst ? t > best_ms : t < best_ms) best = r, best_ms = t;
    }
    return best;
  };
  Request near_cyl = extreme(101, true), near_time = extreme(110, false);
  near_cyl.id = 1;
  near_time.id = 2;
  REQUIRE(m->positioning_ms(head, near_time.loc) < m->positioning_ms(head, near_cyl.loc));
  for (auto [spec, want] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"priority:high=sstf", 1}, {"priority:high=satf", 2}}) {
    auto s = make(spec, *m);
    s->add(near_cyl);
    s->add(near_time);
    CHECK(s->pick(0, head)->id == want);
  }
}

TEST_CASE("priority remove and drain reach every queue", "[priority]") {
  auto m = hp97560();
  auto s = make("priority:timeout=100ms,queues=3", *m);
  s->add(req(1, 10, 0, kLow));
  s->add(req(2, 20, 0, kCritical));
  s->add(req(3, 30, 0, kLow));
  s->add(req(4, 40, 0, kLow));
  s->add(req(5, 50, 80, kLow));
  s->add(req(6, 60, 0, kLimited));
  // At 150: 1, 3 and 4 are past the full timeout, 5 past half.
  auto first = s->pick(150, at_cylinder(0));
  CHECK(first->id == 1);  // oldest timed out
  CHECK(s->remove(3));     // from the timed-out queue
  CHECK(s->remove(2));     // from the high queue
  CHECK_FALSE(s->remove(2));
  CHECK(s->size() == 3);
  auto rest = s->drain();
  CHECK(rest.size() == 3);
  CHECK(s->size() == 0);
  CHECK_FALSE(s->pick(200, at_cylinder(0)).has_value());
}
