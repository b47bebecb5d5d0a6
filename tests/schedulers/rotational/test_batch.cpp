// BSATF and LBSATF: batches that prevent starvation (Jacobson & Wilkes 1991, sec. 5.2).
#include <vector>

#include "tests/schedulers/rotational/fixtures.hpp"

namespace {

// The fake disk (10 sectors of 1 ms per track, head switch 1 ms), head on cylinder 0,
// head 0, at t = 0. The first batch is {A, B}: greedily A (sector 2, done at 3 ms)
// then B (sector 8, starts at 8, done at 9): the batch's projected end is 9 ms.
// After A is dispatched two requests arrive:
//   N1 (sector 5): from A's end it takes 2 ms, ends at 6, and B still starts at 8;
//   N3 (head 1, sector 4, 4 sectors): the nearest (1 ms: a head switch) but it ends at
//      8 on head 1, and B would then start a rotation late; after B it ends at 18.
struct Scene {
  FakeDisk disk;
  HeadState head = head_at(0, 0, 0.0);
  Request a = make_request(disk, 1, disk.lba(0, 0, 2), 0.0);
  Request b = make_request(disk, 2, disk.lba(0, 0, 8), 0.0);
  Request n1 = make_request(disk, 3, disk.lba(0, 0, 5), 2.0);
  Request n3 = make_request(disk, 4, disk.lba(0, 1, 4), 2.0, 4);

  struct Run {
    std::vector<std::uint64_t> order;
    std::vector<Millis> done;  // completion time of each
  };

  Run run(const std::string& spec, Millis now) const {
    auto s = make_scheduler(spec, disk);
    s->add(a);
    s->add(b);
    Run out;
    HeadState h = head;
    bool arrived = false;
    while (auto r = s->pick(now, h)) {
      h = disk.service(h, r->op, r->offset, r->length).end;
      out.order.push_back(r->id);
      out.done.push_back(h.time_ms);
      if (!arrived) {
        s->add(n1);
        s->add(n3);
        arrived = true;
      }
    }
    CHECK(s->size() == 0);
    return out;
  }
};

using Ids = std::vector<std::uint64_t>;

}  // namespace

TEST_CASE("the scene: SATF lets the newcomers in ahead of the batch", "[rotational][batch]") {
  Scene sc;
  // Greedy from A's end: N3 (1 ms), then N1, then B.
  CHECK(sc.run("satf", 0.0).order == Ids{1, 4, 3, 2});
}

TEST_CASE("BSATF finishes the batch before admitting newcomers (JW sec. 5.2)",
          "[rotational][batch][bsatf]") {
  Scene sc;
  // N3 is the nearest after A, but not in the batch: B goes first, then the new batch
  // {N1, N3} greedily from B's end.
  CHECK(sc.run("bsatf", 0.0).order == Ids{1, 2, 4, 3});
  CHECK(sc.run("bsatf:mode=continuous", 0.0).order == Ids{1, 2, 4, 3});
}

TEST_CASE("LBSATF admits a newcomer only if the batch still ends by its deadline (JW sec. 5.2)",
          "[rotational][batch][lbsatf]") {
  Scene sc;
  const auto r = sc.run("lbsatf", 0.0);
  // N1 fits between A and B; N3 does not and waits for the next batch.
  REQUIRE(r.order == Ids{1, 3, 2, 4});
  CHECK(r.done[2] == Approx(9.0));  // B completes at the batch's projected end
}

TEST_CASE("two-mode batching: SATF until the oldest has waited too long (JW sec. 5.2)",
          "[rotational][batch]") {
  Scene sc;
  // now = 50: A and B have waited 50 ms, below age=100: plain SATF.
  CHECK(sc.run("bsatf:mode=on-starvation,age=100ms", 50.0).order == Ids{1, 4, 3, 2});
  CHECK(sc.run("lbsatf:mode=on-starvation,age=100ms", 50.0).order == Ids{1, 4, 3, 2});
  // now = 500: the oldest has waited too long at the first pick: a batch is taken.
  CHECK(sc.run("bsatf:mode=on-starvation,age=100ms", 500.0).order == Ids{1, 2, 4, 3});
  CHECK(sc.run("lbsatf:mode=on-starvation,age=100ms", 500.0).order == Ids{1, 3, 2, 4});
}

TEST_CASE("batch schedulers give back what they hold (remove, drain)", "[rotational][batch]") {
  Scene sc;
  for (const char* spec : {"bsatf", "lbsatf"}) {
    INFO(spec);
    auto s = make_scheduler(spec, sc.disk);
    s->add(sc.a);
    s->add(sc.b);
    REQUIRE(s->pick(0.0, sc.head)->id == 1);  // batch {A, B} taken, A out
    s->add(sc.n1);
    s->add(sc.n3);
    CHECK(s->remove(2));  // B, inside the batch
    CHECK_FALSE(s->remove(2));
    CHECK(s->size() == 2);
    auto rest = s->drain();
    CHECK(rest.size() == 2);
    CHECK(s->size() == 0);
    CHECK_FALSE(s->pick(0.0, sc.head).has_value());
  }
}
