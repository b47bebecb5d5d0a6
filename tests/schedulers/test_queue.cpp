// RequestQueue: the overlap rule and the hand-over between schedulers
// (ARCHITECTURE.md invariants: "overlapping requests keep their arrival order", "no
// algorithm may lose a request").
#include <algorithm>
#include <random>
#include <set>

#include "predictor/profile.hpp"
#include "schedulers/queue.hpp"
#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

Request io(std::uint64_t id, Op op, std::uint64_t offset, std::uint32_t length,
           Millis arrival = 0) {
  return Request::arrived(id, arrival, op, offset, length);
}


HeadState idle() { return HeadState{}; }

// Dispatches everything eligible now (FCFS), returning the ids.
Ids dispatch_all(RequestQueue& q) {
  Ids out;
  while (auto r = q.pick(0, idle())) out.push_back(r->id);
  return out;
}

}  // namespace

TEST_CASE("queue: a write overlapping an earlier unfinished read waits for it", "[queue]") {
  auto m = hp97560();
  RequestQueue q(make("fcfs", *m), *m);
  q.push(io(1, Op::Read, 0, 4096));
  q.push(io(2, Op::Write, 2048, 4096));
  CHECK(q.queued() == 2);
  CHECK(q.eligible() == 1);
  CHECK(dispatch_all(q) == Ids{1});
  CHECK(q.in_flight() == 1);
  CHECK_FALSE(q.pick(0, idle()).has_value());  // 2 still waits: 1 is at the device
  q.complete(1, 5);
  CHECK(q.eligible() == 1);
  CHECK(dispatch_all(q) == Ids{2});
}

TEST_CASE("queue: reads overlapping reads do not wait; reads after a write do", "[queue]") {
  auto m = hp97560();
  RequestQueue q(make("fcfs", *m), *m);
  q.push(io(1, Op::Read, 0, 8192));
  q.push(io(2, Op::Read, 4096, 8192));
  CHECK(q.eligible() == 2);
  q.push(io(3, Op::Write, 100000, 512));
  q.push(io(4, Op::Read, 100000, 4096));  // overlaps the write
  q.push(io(5, Op::Trim, 0, 512));        // trim modifies: waits for reads 1
  q.push(io(6, Op::Zero, 200000, 512));   // overlaps nothing
  q.push(io(7, Op::Flush, 0, 0));         // no extent: never ordered here
  CHECK(q.eligible() == 5);
  CHECK(q.queued() == 7);
}

TEST_CASE("queue: requests that touch but do not overlap are independent", "[queue]") {
  auto m = hp97560();
  RequestQueue q(make("fcfs", *m), *m);
  q.push(io(1, Op::Write, 0, 4096));
  q.push(io(2, Op::Write, 4096, 4096));
  q.push(io(3, Op::Write, 8192, 0));  // zero length
  CHECK(q.eligible() == 3);
}

TEST_CASE("queue: completion releases waiting requests in arrival order", "[queue]") {
  auto m = hp97560();
  RequestQueue q(make("sstf", *m), *m);
  q.push(io(1, Op::Write, 0, 8192));
  REQUIRE(dispatch_all(q) == Ids{1});
  q.push(io(2, Op::Write, 4096, 8192));   // overlaps 1
  q.push(io(3, Op::Write, 10240, 4096));  // overlaps 2 only: must wait for 2
  q.push(io(4, Op::Read, 0, 512));        // overlaps 1 only
  CHECK(q.eligible() == 0);
  q.complete(1, 1);
  // 2 and 4 are free now; 3 still waits behind the unfinished 2.
  CHECK(q.eligible() == 2);
  auto first = q.pick(1, idle());
  auto second = q.pick(1, idle());
  REQUIRE(first);
  REQUIRE(second);
  CHECK(std::set<std::uint64_t>{first->id, second->id} == std::set<std::uint64_t>{2, 4});
  CHECK(q.eligible() == 0);
  q.complete(2, 2);
  CHECK(dispatch_all(q) == Ids{3});
}

TEST_CASE("queue: a chain of overlapping writes completes in arrival order", "[queue]") {
  auto m = hp97560();
  // SSTF would reorder them freely if the queue let it.
  RequestQueue q(make("sstf", *m), *m);
  q.push(io(1, Op::Write, 0, 4096));
  q.push(io(2, Op::Write, 512, 4096));
  q.push(io(3, Op::Write, 256, 768));  // overlaps 1 and 2
  q.push(io(4, Op::Read, 768, 512));   // overlaps all three: must see their data
  Ids order;
  while (!q.empty()) {
    CHECK(q.eligible() == 1);  // each waits for the one before it
    auto r = q.pick(0, idle());
    REQUIRE(r);
    order.push_back(r->id);
    q.complete(r->id, 1);
  }
  CHECK(order == Ids{1, 2, 3, 4});
}

TEST_CASE("queue: cancel withdraws queued requests and frees those waiting on them", "[queue]") {
  auto m = hp97560();
  RequestQueue q(make("fcfs", *m), *m);
  q.push(io(1, Op::Read, 0, 4096));
  REQUIRE(dispatch_all(q) == Ids{1});
  q.push(io(2, Op::Write, 0, 4096));      // waits on 1 (at the device)
  q.push(io(3, Op::Write, 1 << 20, 4096));
  q.push(io(4, Op::Read, 1 << 20, 512));  // waits on 3 (queued)
  CHECK_FALSE(q.cancel(1));   // at the device: too late
  CHECK_FALSE(q.cancel(99));  // unknown
  CHECK(q.cancel(2));         // blocked: withdrawn
  CHECK(q.queued() == 2);
  CHECK(q.eligible() == 1);
  CHECK(q.cancel(3));         // eligible: withdrawn, and 4 is free now
  CHECK(q.eligible() == 1);
  CHECK(dispatch_all(q) == Ids{4});
  CHECK_FALSE(q.cancel(3));
  q.complete(1, 1);
  q.complete(4, 1);
  CHECK(q.empty());
}

TEST_CASE("queue: errors name the request", "[queue]") {
  auto m = hp97560();
  RequestQueue q(make("fcfs", *m), *m);
  q.push(io(1, Op::Read, 0, 512));
  CHECK_THROWS_WITH(q.push(io(1, Op::Read, 512, 512)), Catch::Contains("1"));
  CHECK_THROWS_WITH(q.complete(2, 0), Catch::Contains("2"));
  CHECK_THROWS_WITH(q.complete(1, 0), Catch::Contains("never dispatched"));
  // Beyond the device: the model's error, and the queue is untouched.
  CHECK_THROWS_AS(q.push(io(3, Op::Read, m->capacity_bytes(), 512)), ModelError);
  CHECK(q.queued() == 1);
}

TEST_CASE("queue: locations come from the model, with the op's overhead", "[queue]") {
  DiskProfile p = hp97560_profile();
  p.overhead_ms = PerOp{1.0, 2.0, 3.0};
  DiskModel m(p);
  RequestQueue q(make("sstf", m), m);  // (FCFS reads no Location: the queue computes none)
  q.push(io(1, Op::Write, 1368 * 512 * 10, 8192));
  auto r = q.pick(0, idle());
  REQUIRE(r);
  Location want = m.locate(1368 * 10, 16, Op::Write);
  CHECK(r->loc.cylinder == 10);
  CHECK(r->loc.lba == want.lba);
  CHECK(r->loc.sectors == 16);
  CHECK(r->loc.overhead_ms == want.overhead_ms);
  CHECK(r->loc.overhead_ms == 2.0);
}

TEST_CASE("queue: set_scheduler hands over every request, blocked ones included", "[queue]") {
  auto m = hp97560();
  RequestQueue q(make("sstf", *m), *m);
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::uint64_t> block(0, 2000);
  std::set<std::uint64_t> pending;
  for (std::uint64_t id = 0; id < 300; ++id) {
    Op op = id % 3 == 0 ? Op::Write : Op::Read;
    q.push(io(id, op, block(rng) * 4096, 8192, static_cast<double>(id)));
    pending.insert(id);
  }
  REQUIRE(q.eligible() < q.queued());  // some wait on overlaps
  std::set<std::uint64_t> at_device;
  for (int i = 0; i < 20; ++i) at_device.insert(q.pick(0, idle())->id);
  q.set_scheduler(make("clook", *m));
  CHECK(q.scheduler().spec() == "clook:by=cyl");
  // Finish everything, completing each request right after it is dispatched.
  for (auto id : at_device) q.complete(id, 1);
  std::set<std::uint64_t> done = at_device;
  while (auto r = q.pick(2, idle())) {
    CHECK(done.insert(r->id).second);
    q.complete(r->id, 2);
  }
  CHECK(done == pending);
  CHECK(q.empty());
}

TEST_CASE("queue: requests queued under FCFS are located when a scheduler needs it",
          "[queue]") {
  // FCFS reads no Location, so the queue skips the model there; a switch to SATF must
  // then rank every request, held or blocked, as if SATF had queued it from the start.
  auto m = hp97560();
  RequestQueue fcfs_first(make("fcfs", *m), *m);
  RequestQueue satf_all(make("satf", *m), *m);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::uint64_t> block(0, 4000);
  for (std::uint64_t id = 0; id < 200; ++id) {
    const Op op = id % 4 == 0 ? Op::Write : Op::Read;
    const Request r = io(id, op, block(rng) * 4096, 8192, static_cast<double>(id));
    fcfs_first.push(r);
    satf_all.push(r);
  }
  REQUIRE(fcfs_first.eligible() < fcfs_first.queued());  // some blocked
  fcfs_first.set_scheduler(make("satf", *m));
  HeadState head = m->initial_state();
  Millis now = 0;
  while (auto a = satf_all.pick(now, head)) {
    auto b = fcfs_first.pick(now, head);
    REQUIRE(b);
    CHECK(b->id == a->id);
    CHECK(b->loc.angle == a->loc.angle);
    const Cost c = m->service(head, a->op, a->offset, a->length);
    now = head.time_ms + c.service_ms();
    head = c.end;
    satf_all.complete(a->id, now);
    fcfs_first.complete(b->id, now);
  }
  CHECK(fcfs_first.empty());
}

TEST_CASE("queue: the overlap rule agrees with a brute-force reference on random traffic",
          "[queue][property]") {
  // The reference recomputes eligibility from scratch: a queued request is eligible
  // when no earlier unfinished request overlaps it with at least one side modifying.
  auto m = hp97560();
  struct Ref {
    Request r;
    bool at_device = false;
  };
  auto modifies = [](Op op) { return op == Op::Write || op == Op::Trim || op == Op::Zero; };
  for (std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    RequestQueue q(make("fcfs", *m), *m);
    std::vector<Ref> ref;  // unfinished, in arrival order
    auto eligible = [&] {
      std::set<std::uint64_t> out;
      for (std::size_t i = 0; i < ref.size(); ++i) {
        if (ref[i].at_device) continue;
        const Request& r = ref[i].r;
        bool blocked = false;
        for (std::size_t j = 0; j < i && !blocked; ++j) {
          const Request& e = ref[j].r;
          bool extent = r.op != Op::Flush && e.op != Op::Flush && r.length > 0 && e.length > 0;
          blocked = extent && (modifies(r.op) || modifies(e.op)) && r.offset < e.offset + e.length &&
                    e.offset < r.offset + r.length;
        }
        if (!blocked) out.insert(r.id);
      }
      return out;
    };
    std::uint64_t id = 0;
    for (int step = 0; step < 3000; ++step) {
      unsigned dice = rng() % 100;
      if (dice < 45) {
        static const Op ops[] = {Op::Read, Op::Read, Op::Write, Op::Trim, Op::Zero, Op::Flush};
        Op op = ops[rng() % 6];
        // A 64 KB region, lengths up to 8 KB and now and then 40 KB.
        std::uint32_t len = rng() % 20 == 0 ? 40960 : static_cast<std::uint32_t>(rng() % 17) * 512;
        Request r = io(id++, op, (rng() % 128) * 512, op == Op::Flush ? 0 : len, step);
        q.push(r);
        ref.push_back({r});
      } else if (dice < 55 && !ref.empty()) {
        auto& victim = ref[rng() % ref.size()];
        bool ok = q.cancel(victim.r.id);
        CHECK(ok == !victim.at_device);
        if (ok) {
          auto vid = victim.r.id;
          ref.erase(std::find_if(ref.begin(), ref.end(), [&](const Ref& x) { return x.r.id == vid; }));
        }
      } else if (dice < 80) {
        auto want = eligible();
        auto r = q.pick(step, idle());
        CHECK(r.has_value() == !want.empty());
        if (r) {
          CHECK(want.count(r->id) == 1);
          for (auto& x : ref)
            if (x.r.id == r->id) x.at_device = true;
        }
      } else {
        std::vector<std::size_t> busy;
        for (std::size_t i = 0; i < ref.size(); ++i)
          if (ref[i].at_device) busy.push_back(i);
        if (!busy.empty()) {
          std::size_t i = busy[rng() % busy.size()];
          q.complete(ref[i].r.id, step);
          ref.erase(ref.begin() + static_cast<long>(i));
        }
      }
      REQUIRE(q.eligible() == eligible().size());
      REQUIRE(q.queued() + q.in_flight() == ref.size());
    }
  }
}

TEST_CASE("queue: a track's learnt angle reaches the requests queued on it (issue 11's probe)",
          "[queue][track_phase]") {
  // The head tracker learns that the track of LBA 12345 sits a quarter rotation further
  // on than the profile's skews say. The request queued there before must rank by the new
  // angle: before the model was immutable it kept the Location cached at arrival (the
  // issue's probe: ranked at 11.82 ms of positioning while service() said 15.57 ms; from
  // the head state here, 11.86 and 15.61).
  auto m = hp97560();
  HeadState head = m->initial_state();
  head.time_ms = 10.0;  // the probe's: the head at cylinder 0, 10 ms in
  const std::uint64_t lba = 12345;
  const Location was = m->locate(lba, 1, Op::Read);
  TrackAngles learnt;
  m->turn_track(learnt, was.cylinder, was.head, 0.25);
  const Millis cached = m->positioning_ms(head, was);
  const Millis truth = m->service(head, Op::Read, lba * 512, 512, learnt).positioning_ms();
  CHECK(cached == Approx(11.864).margin(0.001));
  CHECK(truth == Approx(15.612).margin(0.001));
  CHECK(truth - cached == Approx(m->rotation_ms() / 4).margin(1e-9));

  // A rival on another track that ranks between the two: SATF picks it only when the
  // queued request is ranked by its true angle.
  std::uint64_t rival = 0;
  for (std::uint64_t l = 200'000; rival == 0; l += 37) {
    const Location r = m->locate(l, 1, Op::Read);
    const Millis p = m->positioning_ms(head, r);
    if (r.cylinder != was.cylinder && p > cached + 1.0 && p < truth - 1.0) rival = l;
  }
  RequestQueue q(make("satf", *m), *m);
  q.push(io(1, Op::Read, lba * 512, 512));
  q.push(io(2, Op::Read, rival * 512, 512));
  CHECK(q.relocate_track(was.cylinder, was.head, learnt) == 1);
  auto first = q.pick(0, head);
  REQUIRE(first);
  CHECK(first->id == 2);
  // Arriving after the turn, it is located with the learnt angle at once.
  RequestQueue late(make("satf", *m), *m);
  late.push(io(1, Op::Read, lba * 512, 512), &learnt);
  late.push(io(2, Op::Read, rival * 512, 512), &learnt);
  CHECK(late.pick(0, head)->id == 2);
  // Without the learnt angle the cached one wins (the test can fail).
  RequestQueue stale(make("satf", *m), *m);
  stale.push(io(1, Op::Read, lba * 512, 512));
  stale.push(io(2, Op::Read, rival * 512, 512));
  CHECK(stale.pick(0, head)->id == 1);
}
