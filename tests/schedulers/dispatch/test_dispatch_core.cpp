// The filter's dispatch core in virtual time: depth, who is dispatched when, what the
// scheduler is given, the overlap rule, failures, switching schedulers, predictions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "bench/experiments/workload/workload.hpp"
#include "daemon/filter/live_core.hpp"
#include <map>
#include "predictor/lbn_model.hpp"
#include "predictor/disk_model.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;
using Catch::Matchers::StartsWith;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

// The core names requests itself (arrival order from 0); the tests name them by r.id,
// and check that the core's names follow arrival order. What it dispatched comes out as
// its records, with the tests' name in `seq`.
struct Core : LiveCore {
  using LiveCore::LiveCore;
  std::map<std::uint64_t, std::uint64_t> test_id, core_id;
  std::uint64_t next = 0;

  // r.seq: the test's name for it (the core gives its own).
  void arrive(const RequestRecord& r, Millis t, std::vector<RequestRecord>& out) {
    std::vector<std::uint64_t> d;
    const std::uint64_t id = LiveCore::arrive(r, t, d);
    REQUIRE(id == next++);
    test_id[id] = r.seq;
    core_id[r.seq] = id;
    emit(d, out);
  }
  Prediction complete(std::uint64_t id, Millis t, bool ok, std::vector<RequestRecord>& out) {
    std::vector<std::uint64_t> d;
    const RequestRecord& rec = LiveCore::complete(core_id.at(id), t, ok, d);
    REQUIRE(rec.completion_ms == t);
    REQUIRE(rec.ok == ok);
    const Prediction p = rec.prediction;
    emit(d, out);
    return p;
  }
  void emit(const std::vector<std::uint64_t>& d, std::vector<RequestRecord>& out) {
    for (const std::uint64_t id : d) {
      out.push_back(record(id));
      out.back().seq = test_id.at(id);
    }
  }
};

Core make_core(const char* spec, std::unique_ptr<DeviceModel> model, unsigned depth = 1,
               std::optional<Millis> delta = 0.0) {
  auto s = make_scheduler(spec, *model);
  LiveCore::Options o;
  o.depth = depth;
  o.fixed_delta = delta;
  return Core(std::move(model), std::move(s), o);
}

RequestRecord req(std::uint64_t id, Op op, std::uint64_t offset, std::uint32_t length = 4096) {
  RequestRecord r = RequestRecord::arriving(op, offset, length);
  r.seq = id;
  return r;
}

std::vector<std::uint64_t> ids(const std::vector<RequestRecord>& g) {
  std::vector<std::uint64_t> v;
  for (const auto& x : g) v.push_back(x.seq);
  return v;
}

}  // namespace

TEST_CASE("depth 1: one request at the device, the next on completion", "[filter][dispatch]") {
  auto core = make_core("fcfs", std::make_unique<LbnModel>(64 * kMiB));
  std::vector<RequestRecord> out;
  core.arrive(req(1, Op::Read, 0), 0.0, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{1});
  REQUIRE(out[0].queue_len == 1);
  out.clear();
  core.arrive(req(2, Op::Read, 8 * kMiB), 1.0, out);
  core.arrive(req(3, Op::Write, 16 * kMiB), 2.0, out);
  REQUIRE(out.empty());
  REQUIRE(core.core().in_flight() == 1);
  REQUIRE(core.core().queued() == 2);
  core.complete(1, 5.0, true, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{2});
  REQUIRE(out[0].queue_len == 2);
  REQUIRE(out[0].dispatch_ms == 5.0);
  out.clear();
  core.complete(2, 9.0, true, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{3});
  out.clear();
  core.complete(3, 12.0, true, out);
  REQUIRE(out.empty());
  REQUIRE(core.core().queued() == 0);
  REQUIRE(core.core().in_flight() == 0);
  const auto& st = core.core().stats();
  REQUIRE(st.arrived == 3);
  REQUIRE(st.completed == 3);
  REQUIRE(st.sum_queue_len == Approx(1 + 2 + 1));
  REQUIRE(st.sum_response_ms == Approx(5 + 8 + 10));
}

TEST_CASE("a held record is filled where its caller keeps it, across the ring's growth",
          "[filter][dispatch]") {
  // The filter's worker holds its request's record from arrival to log line; the core
  // writes dispatch and completion into it in place. 100 more arrivals while it is at
  // the device make the core's ring grow (64 slots at first) around it.
  auto core = make_core("fcfs", std::make_unique<LbnModel>(64 * kMiB));
  std::vector<std::uint64_t> d;
  RequestRecord held = RequestRecord::arriving(Op::Write, 4 * kMiB, 8192, IoClass::TimeLimited, 50.0);
  const std::uint64_t id = core.arrive_held(held, 1.0, d);
  REQUIRE(d == std::vector<std::uint64_t>{id});
  REQUIRE(held.seq == id);
  REQUIRE(held.arrival_ms == 1.0);
  REQUIRE(held.dispatch_ms == 1.0);
  REQUIRE(held.queue_len == 1);
  REQUIRE(&core.record(id) == &held);
  d.clear();
  for (std::uint64_t i = 0; i < 100; ++i)
    core.LiveCore::arrive(RequestRecord::arriving(Op::Read, (8 + i) * kMiB / 4, 4096), 2.0, d);
  REQUIRE(d.empty());
  const RequestRecord& done = core.LiveCore::complete(id, 7.5, true, d);
  REQUIRE(&done == &held);
  REQUIRE(held.completion_ms == 7.5);
  REQUIRE(held.ok);
  REQUIRE(held.op == Op::Write);
  REQUIRE(held.offset == 4 * kMiB);
  REQUIRE(held.cls == IoClass::TimeLimited);
  REQUIRE(held.limit_ms == 50.0);
  // The next (FCFS: the first of the hundred) kept its own record through the growth.
  REQUIRE(d == std::vector<std::uint64_t>{id + 1});
  REQUIRE(core.record(id + 1).offset == 8 * kMiB / 4);
  REQUIRE(core.record(id + 1).dispatch_ms == 7.5);
  REQUIRE(core.record(id + 100).offset == 107 * kMiB / 4);
}

TEST_CASE("depth N keeps N at the device", "[filter][dispatch]") {
  auto core = make_core("fcfs", std::make_unique<LbnModel>(64 * kMiB), 3);
  std::vector<RequestRecord> out;
  for (std::uint64_t i = 1; i <= 5; ++i) core.arrive(req(i, Op::Read, i * kMiB), 0.0, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{1, 2, 3});
  out.clear();
  core.complete(2, 1.0, true, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{4});
  REQUIRE(core.core().in_flight() == 3);
}

TEST_CASE("the scheduler picks from the tracked head position (SSTF by LBN)",
          "[filter][dispatch]") {
  auto core = make_core("sstf", std::make_unique<LbnModel>(64 * kMiB));
  std::vector<RequestRecord> out;
  core.arrive(req(1, Op::Read, 32 * kMiB), 0.0, out);  // at the device
  core.arrive(req(2, Op::Read, 1 * kMiB), 0.1, out);
  core.arrive(req(3, Op::Read, 60 * kMiB), 0.2, out);
  core.arrive(req(4, Op::Read, 34 * kMiB), 0.3, out);
  core.arrive(req(5, Op::Read, 30 * kMiB), 0.4, out);
  out.clear();
  std::vector<std::uint64_t> order;
  std::uint64_t next = 1;
  Millis t = 1.0;
  while (true) {
    core.complete(next, t, true, out);
    if (out.empty()) break;
    next = out.back().seq;
    order.push_back(next);
    out.clear();
    t += 1.0;
  }
  // From 32 MiB: 34 (2 MiB away) and 30 are tied by distance from the end of the
  // request (32 MiB + 4 KiB): 34 is nearer. Then 30, then 60 or 1 whichever is nearer.
  REQUIRE(order == std::vector<std::uint64_t>{4, 5, 2, 3});
}

TEST_CASE("a request overlapping an unfinished write waits for it, even with room",
          "[filter][dispatch]") {
  auto core = make_core("sstf", std::make_unique<LbnModel>(64 * kMiB), 4);
  std::vector<RequestRecord> out;
  core.arrive(req(1, Op::Write, 10 * kMiB, 8192), 0.0, out);
  core.arrive(req(2, Op::Read, 10 * kMiB + 4096, 4096), 0.1, out);   // overlaps 1
  core.arrive(req(3, Op::Read, 40 * kMiB), 0.2, out);                 // independent
  REQUIRE(ids(out) == std::vector<std::uint64_t>{1, 3});
  REQUIRE(core.core().queued() == 1);
  out.clear();
  core.complete(3, 1.0, true, out);
  REQUIRE(out.empty());                                   // 2 still blocked by 1
  core.complete(1, 2.0, true, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{2});
}

TEST_CASE("a failed request frees the device and fails alone", "[filter][dispatch]") {
  auto core = make_core("fcfs", std::make_unique<LbnModel>(64 * kMiB));
  std::vector<RequestRecord> out;
  core.arrive(req(1, Op::Write, 0), 0.0, out);
  core.arrive(req(2, Op::Read, 0), 0.1, out);      // overlaps the failing write
  core.arrive(req(3, Op::Read, kMiB), 0.2, out);
  out.clear();
  core.complete(1, 1.0, false, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{2});
  out.clear();
  core.complete(2, 2.0, true, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{3});
  REQUIRE(core.core().stats().failed == 1);
  REQUIRE(core.core().stats().completed == 2);
}

TEST_CASE("a request beyond the device is refused and nothing is queued",
          "[filter][dispatch]") {
  auto core = make_core("fcfs", std::make_unique<LbnModel>(kMiB));
  std::vector<RequestRecord> out;
  REQUIRE_THROWS_AS(core.arrive(req(1, Op::Read, kMiB - 2048, 4096), 0.0, out), ModelError);
  REQUIRE(core.core().queued() == 0);
  REQUIRE(core.core().in_flight() == 0);
  core.arrive(req(2, Op::Read, 0), 0.0, out);
  REQUIRE(ids(out) == std::vector<std::uint64_t>{2});
}

TEST_CASE("switching schedulers keeps every queued request", "[filter][dispatch]") {
  auto core = make_core("fcfs", load_model("hp97560"));
  std::vector<RequestRecord> out;
  const std::uint64_t n = 40;
  for (std::uint64_t i = 1; i <= n; ++i)
    core.arrive(req(i, Op::Read, (i * 7919 % 2000) * kMiB / 2, 8192), 0.0, out);
  REQUIRE(out.size() == 1);
  std::set<std::uint64_t> granted{out[0].seq};
  std::uint64_t at_device = out[0].seq;
  out.clear();
  Millis t = 1;
  for (int step = 0; at_device != 0; ++step) {
    if (step == 5) REQUIRE_THAT(core.switch_scheduler("asatf:w=30"), StartsWith("asatf:w=30"));
    if (step == 15) REQUIRE_THAT(core.switch_scheduler("sstf"), StartsWith("sstf"));
    if (step == 25) REQUIRE_THROWS_AS(core.switch_scheduler("nosuch"), SpecError);
    core.complete(at_device, t, true, out);
    t += 10;
    at_device = 0;
    if (!out.empty()) {
      at_device = out[0].seq;
      REQUIRE(granted.insert(at_device).second);  // never twice
      out.clear();
    }
  }
  REQUIRE(granted.size() == n);
  REQUIRE(core.core().stats().switches == 2);
  REQUIRE_THAT(core.core().scheduler_spec(), StartsWith("sstf"));
}

TEST_CASE("rotation-aware pick uses the head tracked from completions (satf, hp97560)",
          "[filter][dispatch]") {
  auto core = make_core("satf", load_model("hp97560"), 1, 0.2);
  std::vector<RequestRecord> out;
  core.arrive(req(1, Op::Read, 300 * kMiB, 8192), 0.0, out);
  REQUIRE(out.size() == 1);
  out.clear();
  std::vector<RequestRecord> queued;
  for (std::uint64_t i = 2; i <= 12; ++i) {
    RequestRecord r = req(i, Op::Read, (i * 104729 % 1300) * kMiB, 8192);
    queued.push_back(r);
    core.arrive(r, 0.5, out);
  }
  const Millis done = 31.7;
  core.complete(1, done, true, out);
  REQUIRE(out.size() == 1);
  // What a fresh model anchored like the core's says: the chosen request has the least
  // positioning time from the predicted head at done + delta.
  const DeviceModel& m = core.model();
  const Prediction& p = out[0].prediction;
  REQUIRE(p.from.time_ms == Approx(done + 0.2));
  Millis best = std::numeric_limits<double>::infinity();
  for (const auto& r : queued) {
    const Location loc = m.locate(r.offset / 512, 16);
    best = std::min(best, m.positioning_ms(p.from, loc));
  }
  REQUIRE(p.cost.positioning_ms() == Approx(best).margin(1e-9));
}

TEST_CASE("predictions: fixed model plus delta; calibration comes due", "[filter][dispatch]") {
  auto model = load_model("fixed:ms=5");
  auto s = make_scheduler("fcfs", *model);
  LiveCore::Options o;
  o.calibrate_first = 4;
  o.calibrate_every = 8;
  Core core(std::move(model), std::move(s), o);
  REQUIRE(core.calibrating());
  std::vector<RequestRecord> out;
  Millis t = 0;
  for (std::uint64_t i = 1; i <= 4; ++i) {
    core.arrive(req(i, Op::Read, i * 4096), t, out);
    REQUIRE(out.back().prediction.observed_service_ms() == Approx(5.0));
    out.clear();
    core.complete(i, t + 5.3, true, out);
    t += 10;
  }
  REQUIRE(core.calibration_due());
  auto samples = core.take_calibration_samples();
  REQUIRE(samples.size() == 4);
  REQUIRE_FALSE(core.calibration_due());
  auto scratch = load_model("fixed:ms=5");
  core.tracker().set_delta_ms(calibrate_delta(*scratch, samples).delta_ms);
  REQUIRE(core.tracker().delta_ms() == Approx(0.3));
  core.arrive(req(9, Op::Read, 0), t, out);
  REQUIRE(out.back().prediction.observed_service_ms() == Approx(5.3));
}

TEST_CASE("the LBN model refits its terms to observed service times", "[filter][dispatch]") {
  // A device whose service is 2 ms + 6 ms per full stroke + 0.01 ms per sector.
  LbnModel truth(1ull << 30, 512, {2.0, 6.0, 0.01});
  LbnModel guess(1ull << 30);
  std::vector<TrackerSample> samples;
  std::uint64_t pos = 0;
  for (int i = 0; i < 64; ++i) {
    TrackerSample s;
    s.from.cylinder = static_cast<std::int64_t>(pos);
    s.op = Op::Read;
    s.offset = (static_cast<std::uint64_t>(i) * 7919 % 2000) * (1 << 19);
    s.length = 4096u << (i % 4);
    s.dispatch_ms = i * 100.0;
    HeadState from;
    from.cylinder = s.from.cylinder;
    s.complete_ms = s.dispatch_ms + truth.service(from, Op::Read, s.offset, s.length).service_ms();
    pos = s.offset / 512 + s.length / 512;
    samples.push_back(s);
  }
  const auto p = guess.fit(samples);
  REQUIRE(p);
  REQUIRE(p->overhead_ms == Approx(2.0).margin(1e-6));
  REQUIRE(p->full_stroke_ms == Approx(6.0).margin(1e-6));
  REQUIRE(p->transfer_ms_per_sector == Approx(0.01).margin(1e-9));
  // All one size: the per-sector term keeps its value, the others are fitted.
  for (auto& s : samples) s.length = 8192;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    HeadState from;
    from.cylinder = samples[i].from.cylinder;
    samples[i].complete_ms =
        samples[i].dispatch_ms + truth.service(from, Op::Read, samples[i].offset, 8192).service_ms();
  }
  const auto q = guess.fit(samples);
  REQUIRE(q);
  REQUIRE(q->transfer_ms_per_sector == guess.params().transfer_ms_per_sector);
  REQUIRE(q->full_stroke_ms == Approx(6.0).margin(1e-6));
  REQUIRE(q->overhead_ms + 16 * q->transfer_ms_per_sector == Approx(2.0 + 16 * 0.01).margin(1e-6));
  REQUIRE_FALSE(guess.fit({samples.begin(), samples.begin() + 5}));
}

TEST_CASE("current_profile: a disk geometry's, refused without one", "[filter][dispatch][profile]") {
  auto lbn = make_core("fcfs", std::make_unique<LbnModel>(64 * kMiB));
  REQUIRE_THROWS_WITH(lbn.current_profile(), Catch::Matchers::Contains("not a disk geometry"));
  auto disk = make_core("fcfs", load_model("hp97560"));
  const DiskProfile p = disk.current_profile();
  CHECK(p.heads == 19);
  CHECK(p.rotation_ms == disk.model().rotation_ms());
}

TEST_CASE("a track turned from completions re-ranks the requests already queued on it",
          "[filter][dispatch][track_phase]") {
  // The device's track of LBA 12345 sits a quarter rotation further on than the profile
  // says. Completions on it teach the head tracker so; the requests queued there before
  // must then rank by the corrected angle (issue 11's probe, through the core).
  auto model = load_model("hp97560");
  const auto& disk = dynamic_cast<const DiskModel&>(*model);
  const Location probe = disk.locate(12345, 1, Op::Read);
  const std::int64_t cyl = probe.cylinder;
  const std::int32_t hd = probe.head;
  DiskProfile shifted = disk.profile();
  double moved = disk.track_angle(cyl, hd) + 0.25;
  shifted.track_phase.push_back({cyl, hd, moved - std::floor(moved)});
  const DiskModel device(shifted);
  const std::uint64_t track0 = disk.chs_to_lba({cyl, hd, 0});
  const std::uint32_t spt = disk.sectors_per_track(cyl);

  auto core = make_core("satf", std::move(model));  // delta 0: the device starts at once
  const DeviceModel& m = core.model();
  HeadState at = device.initial_state();  // where the device's head really is
  std::vector<RequestRecord> out;
  std::uint64_t next_id = 0;
  Millis now = 1.0;
  // Dispatches one request to the idle device; returns its id and true completion.
  auto start = [&](std::uint64_t lba) {
    const std::uint64_t id = ++next_id;
    core.arrive(req(id, Op::Read, lba * 512, 512), now, out);
    REQUIRE(out.size() == 1);
    out.clear();
    at.time_ms = now;
    at = device.service(at, Op::Read, lba * 512, 512).end;
    return std::pair{id, at.time_ms};
  };
  Rng rng(11);
  // Two requests elsewhere for every one on the track, so the platter's phase (the median
  // of the last seven completions) stays the other tracks': three on the track agree.
  int on_track = 0;
  for (int i = 0; on_track < 3; ++i) {
    const bool here = i % 3 == 2;
    const std::uint64_t lba = here ? track0 + (7 * i) % spt : rng.below(m.capacity_bytes() / 512);
    const auto [id, done] = start(lba);
    core.complete(id, done, true, out);
    REQUIRE(out.empty());
    now = done + 1.0 + 20.0 * rng.uniform();
    on_track += here;
  }
  REQUIRE(core.tracker().tracks_rephased() == 0);

  // The fourth on the track is at the device while A (on the track) and a rival B wait.
  // The head will be on the track when it completes: pick A's sector so that its wait
  // grows by the quarter turn (no wrap), and B so that it ranks between A's two costs.
  const auto [id4, done4] = start(track0 + 3);
  HeadState head = at;  // the device's state at done4, as the tracker will predict it
  const TrackAngles learnt{{cyl * disk.heads() + hd, device.track_angle(cyl, hd)}};
  std::uint64_t a = 0;
  Millis cached = 0, truth = 0;
  for (std::uint32_t s = 0; s < spt && a == 0; ++s) {
    cached = m.positioning_ms(head, m.locate(track0 + s, 1, Op::Read));
    truth = m.positioning_ms(head, m.locate(track0 + s, 1, Op::Read, learnt));
    if (truth - cached > 0.2 * m.rotation_ms()) a = track0 + s;
  }
  REQUIRE(a != 0);
  std::uint64_t b = 0;
  for (std::uint64_t l = 100'000; b == 0; l += 37) {
    const Location r = m.locate(l, 1, Op::Read);
    const Millis p = m.positioning_ms(head, r);
    if (r.cylinder != cyl && p > cached + 0.5 && p < truth - 0.5) b = l;
  }
  core.arrive(req(1001, Op::Read, a * 512, 512), now, out);
  core.arrive(req(1002, Op::Read, b * 512, 512), now, out);
  REQUIRE(out.empty());
  core.complete(id4, done4, true, out);
  REQUIRE(core.tracker().tracks_rephased() == 1);
  REQUIRE(out.size() == 1);
  INFO("A at " << cached << " ms cached, " << truth << " ms true; B between");
  CHECK(out[0].seq == 1002);
  CHECK(out[0].prediction.cost.positioning_ms() == Approx(m.positioning_ms(head, m.locate(b, 1, Op::Read))).margin(1e-6));
}
