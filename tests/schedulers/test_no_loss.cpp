// "No algorithm may lose a request" (ARCHITECTURE.md invariants). Every registered
// scheduler, with its defaults and with other parameters, is fed thousands of random
// adds, removes, drains and picks; the multiset of requests it holds must match what
// was given and not yet taken, at every step and at the end.
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "schedulers/queue.hpp"
#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

struct Models {
  std::unique_ptr<DeviceModel> disk = hp97560();
  std::unique_ptr<DeviceModel> mems = mems_model_or_fake();
  const DeviceModel& for_algorithm(const AlgorithmInfo& a) const {
    return a.needs_mems ? *mems : *disk;
  }
};

IoClass random_class(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return IoClass::TimeCritical;
    case 1: return IoClass::TimeLimited;
    default: return IoClass::TimeNoncritical;
  }
}

// One randomized run; returns a description of the first discrepancy, or "".
std::string exercise(Scheduler& s, const DeviceModel& m, std::uint64_t seed, int operations) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(1.0 / 3.0);  // ms between events
  const std::uint64_t blocks = m.capacity_bytes() / m.sector_bytes();
  std::uniform_int_distribution<std::uint64_t> lba(0, blocks - 64);
  std::map<std::uint64_t, int> held;  // id -> copies the scheduler should hold (0 or 1)
  std::uint64_t next_id = 0;
  HeadState head = m.initial_state();
  Millis now = head.time_ms;
  for (int op = 0; op < operations; ++op) {
    now += gap(rng);
    const unsigned dice = rng() % 100;
    if (dice < 45 || held.empty()) {
      Request r = lba_request(m, next_id++, lba(rng), now, random_class(rng),
                              static_cast<std::uint32_t>(1 + rng() % 32));
      r.limit_ms = r.cls == IoClass::TimeLimited ? 50 : 0;
      s.add(r);
      held[r.id] = 1;
    } else if (dice < 47) {
      // Drain part-way and give everything back: the same requests, each once.
      std::set<std::uint64_t> drained;
      auto all = s.drain();
      for (const auto& r : all)
        if (!drained.insert(r.id).second) return fmt::format("op {}: drained {} twice", op, r.id);
      if (drained.size() != held.size())
        return fmt::format("op {}: drained {} requests, {} were held", op, drained.size(), held.size());
      for (const auto& r : all) s.add(r);
    } else if (dice < 60) {
      // Remove a held request, or try an id that is not held.
      std::uint64_t id = rng() % 4 == 0 ? next_id + 100 : std::next(held.begin(), static_cast<long>(rng() % held.size()))->first;
      const bool expected = held.count(id) == 1;
      if (s.remove(id) != expected)
        return fmt::format("op {}: remove({}) returned {}", op, id, !expected);
      held.erase(id);
    } else {
      if (head.time_ms < now) head.time_ms = now;
      auto r = s.pick(now, head);
      if (!r) return fmt::format("op {}: pick returned nothing with {} held", op, held.size());
      auto it = held.find(r->id);
      if (it == held.end()) return fmt::format("op {}: picked {} which is not held", op, r->id);
      held.erase(it);
      head = m.service(head, r->op, r->offset, r->length).end;
      s.completed(*r, head.time_ms);
    }
    if (s.size() != held.size())
      return fmt::format("op {}: size() {} but {} held", op, s.size(), held.size());
  }
  // Half the time empty it by picking, else by draining.
  std::set<std::uint64_t> rest;
  if (seed % 2 == 0) {
    while (auto r = s.pick(now, head)) {
      if (!rest.insert(r->id).second) return fmt::format("picked {} twice", r->id);
      head = m.service(head, r->op, r->offset, r->length).end;
      now = head.time_ms;
      s.completed(*r, now);
    }
  } else {
    for (const auto& r : s.drain())
      if (!rest.insert(r.id).second) return fmt::format("drained {} twice", r.id);
  }
  std::set<std::uint64_t> want;
  for (const auto& [id, n] : held) want.insert(id);
  if (rest != want)
    return fmt::format("emptied {} requests, {} were held", rest.size(), want.size());
  if (s.size() != 0 || s.pick(now, head)) return "not empty after emptying";
  return "";
}

}  // namespace

TEST_CASE("no registered scheduler loses or duplicates a request", "[no-loss]") {
  Models models;
  const auto& reg = Registry::builtin();
  REQUIRE(reg.algorithms().size() >= 11);
  for (const auto& a : reg.algorithms()) {
    const DeviceModel& m = models.for_algorithm(a);
    for (std::uint64_t seed : {1, 2}) {
      auto s = reg.make(a.name, m);
      INFO(s->spec() << " on " << m.name() << ", seed " << seed);
      CHECK(exercise(*s, m, seed, 3000) == "");
    }
  }
}

TEST_CASE("non-default variants keep every request too", "[no-loss]") {
  Models models;
  for (const char* spec :
       {"sstf:by=lbn", "look:by=lbn", "clook:by=lbn", "vr:r=0", "vr:r=1", "sswt:threshold=5",
        "priority:variant=2,timeout=20ms,queues=3,high=satf,low=clook",
        "priority:timeout=5ms,expired=mix", "zsptf:pyramid=on,merge4_below=40,merge16_below=10",
        "ztsptf:zone=60x600,pyramid=on", "zfcfs:zone=240x2400",
        // The rotational family beyond its defaults: oracles, forms, forcing, batching.
        "satf:search=scan", "asatf:w=5,form=hong", "asatf:w=3000", "satfuf:age=20ms",
        "satfuf:age=20ms,n=4", "satfdf:age=20ms,d=1", "satfdf:age=0ms,n=3,d=0",
        "satfgdf:age=20ms,d=2", "satfgdf:age=0ms,n=2,d=0", "bsatf:mode=on-starvation,age=30ms",
        "lbsatf:mode=on-starvation,age=30ms", "oat:batch=4", "oat:batch=5,mode=sliding",
        "oat:batch=3,mode=greedy", "gstf:group=10", "gstf:group=500,admit=frozen", "wstf:tmax=50ms"}) {
    const AlgorithmInfo* a = Registry::builtin().find(std::string(spec).substr(0, std::string(spec).find(':')));
    REQUIRE(a != nullptr);
    const DeviceModel& m = models.for_algorithm(*a);
    auto s = make_scheduler(spec, m);
    INFO(spec);
    CHECK(exercise(*s, m, 3, 3000) == "");
  }
}

TEST_CASE("a queue switching among every scheduler completes each request exactly once",
          "[no-loss][queue]") {
  Models models;
  const auto& reg = Registry::builtin();
  for (bool mems : {false, true}) {
    const DeviceModel& m = mems ? *models.mems : *models.disk;
    std::vector<const AlgorithmInfo*> usable;
    for (const auto& a : reg.algorithms())
      if (a.needs_mems == mems) usable.push_back(&a);
    INFO(m.name());
    std::mt19937_64 rng(mems ? 5 : 4);
    RequestQueue q(reg.make(usable.front()->name, m), m);
    const std::uint64_t blocks = m.capacity_bytes() / m.sector_bytes();
    // A small region so that writes often overlap and wait.
    std::uniform_int_distribution<std::uint64_t> lba(0, std::min<std::uint64_t>(blocks - 64, 4000));
    std::set<std::uint64_t> pushed, done, at_device;
    HeadState head = m.initial_state();
    Millis now = 0;
    std::uint64_t id = 0;
    for (int step = 0; step < 4000; ++step) {
      now += 1.0;
      unsigned dice = rng() % 100;
      if (dice < 40) {
        Request r;
        r.id = id++;
        r.op = rng() % 3 == 0 ? Op::Write : Op::Read;
        r.offset = lba(rng) * m.sector_bytes();
        r.length = static_cast<std::uint32_t>((1 + rng() % 16) * m.sector_bytes());
        r.arrival_ms = now;
        r.cls = random_class(rng);
        q.push(r);
        pushed.insert(r.id);
      } else if (dice < 45 && id > 0) {
        std::uint64_t victim = rng() % id;
        if (q.cancel(victim)) {
          CHECK(pushed.erase(victim) == 1);
        }
      } else if (dice < 50) {
        q.set_scheduler(reg.make(usable[rng() % usable.size()]->name, m));
      } else if (dice < 75) {
        if (head.time_ms < now) head.time_ms = now;
        if (auto r = q.pick(now, head)) {
          CHECK(at_device.insert(r->id).second);
          head = m.service(head, r->op, r->offset, r->length).end;
        }
      } else if (!at_device.empty()) {
        auto it = std::next(at_device.begin(), static_cast<long>(rng() % at_device.size()));
        q.complete(*it, now);
        CHECK(done.insert(*it).second);
        at_device.erase(it);
      }
    }
    // Finish: complete what is at the device, then serve the rest.
    for (auto r : at_device) {
      q.complete(r, now);
      CHECK(done.insert(r).second);
    }
    while (auto r = q.pick(now, head)) {
      q.complete(r->id, now);
      CHECK(done.insert(r->id).second);
    }
    CHECK(q.empty());
    CHECK(done == pushed);
  }
}
