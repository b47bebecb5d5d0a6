// Starvation on an adversarial stream (tests/schedulers/adversarial_stream.hpp, shared
// with the seek and class-aware schedulers): a closed loop keeps `depth` hot requests
// queued on two neighbouring cylinders of the HP 97560, and one far request arrives.
//
// SATF (JW sec. 5: "As with SSTF, SATF is subject to starvation") never serves the far
// request: some hot request is always nearer in access time. The algorithms JW built to
// bound waiting (ASATF sec. 5.3, the forcing family sec. 5.1, the batches sec. 5.2) serve
// it within bounds derived below from their rules. The bounds use two properties of the
// device: P, an upper bound on any positioning time between the stream's requests,
// computed from the model, and S, the longest service the run actually saw.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"
#include "schedulers/rotational/asatf.hpp"
#include "tests/schedulers/adversarial_stream.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

constexpr std::uint64_t kBlocksPerCylinder = 19 * 72;  // HP 97560
constexpr std::int32_t kHeads = 19;

// Hot: cylinders 1000-1001; far: cylinder 1900 (about 15 ms of seek from the hot ones).
AdversarialStream disk_stream() {
  AdversarialStream a;
  a.hot_lbas = hot_cylinders(kBlocksPerCylinder, 1000, 2, 16);
  a.far_lba = 1900 * kBlocksPerCylinder;
  return a;
}

// An upper bound on the positioning time from any state on `cylinders` (any head, any
// time) to any of `targets`. Positioning as a function of the start time falls with
// slope -1 between upward jumps, so its supremum over [t_i, t_i + d] is at most the
// larger grid value plus d: the grid maximum plus d bounds it.
Millis max_positioning(const DeviceModel& m, const std::vector<std::int64_t>& cylinders,
                       const std::vector<std::uint64_t>& targets) {
  constexpr int kGrid = 180;
  const Millis d = m.rotation_ms() / kGrid;
  Millis worst = 0.0;
  for (std::uint64_t lba : targets) {
    const Location to = m.locate(lba, 16, Op::Read);
    for (std::int64_t c : cylinders)
      for (std::int32_t h = 0; h < kHeads; ++h)
        for (int i = 0; i < kGrid; ++i) {
          HeadState s;
          s.cylinder = c;
          s.head = h;
          s.time_ms = i * d;
          worst = std::max(worst, m.positioning_ms(s, to));
        }
  }
  return worst + d;
}

std::unique_ptr<Scheduler> make(const std::string& spec, const DeviceModel& m) {
  return make_scheduler(spec, m);
}

}  // namespace

TEST_CASE("SATF starves the far request (JW sec. 5)", "[rotational][starvation]") {
  auto m = load_model("hp97560");
  auto cfg = disk_stream();
  for (const char* spec : {"satf", "asatf:w=0", "gstf:group=100,admit=all"}) {
    INFO(spec);
    const auto res = run_adversarial(make(spec, *m), *m, cfg);
    CHECK_FALSE(res.far_served);
    CHECK(res.dispatches_before_far == cfg.max_dispatches);
  }
}

TEST_CASE("ASATF(w) serves the far request within P/beta + (depth + 1) S (JW sec. 5.3)",
          "[rotational][starvation][asatf]") {
  // ASATF ranks by key = T_A - beta * T_wait (beta = w * tau / 1000, or w / 1000 in
  // Hong's form). A hot request h that arrived later than the far one f by more than
  // P / beta has key(h) >= -beta * wait(h) > P - beta * wait(f) >= key(f): it cannot go
  // first. From P / beta after f's arrival, only the `depth` hot requests then queued
  // can still precede f, and the dispatch in progress: f waits at most
  // P / beta + (depth + 1) * S.
  auto m = load_model("hp97560");
  auto cfg = disk_stream();
  const Millis P = max_positioning(*m, {1000, 1001}, {cfg.far_lba});
  INFO("P (hot region to far) = " << P << " ms");
  REQUIRE(P < 2.5 * m->rotation_ms());
  for (const char* spec : {"asatf:w=30", "asatf:w=300", "asatf:w=5,form=hong"}) {
    INFO(spec);
    auto [a, params] = Registry::builtin().parse(spec);
    const bool hong = params.choice("form") == "hong";
    const double beta = rotational::asatf_beta(
        params.number("w"), hong ? rotational::AgingForm::Hong : rotational::AgingForm::JacobsonWilkes, *m);
    cfg.max_dispatches = static_cast<std::size_t>(2 * P / beta / 3.0) + 1000;  // ample
    const auto res = run_adversarial(make(spec, *m), *m, cfg);
    REQUIRE(res.far_served);
    const Millis bound = P / beta + (cfg.depth + 1) * res.max_service_ms;
    INFO("waited " << res.far_wait_ms << " ms, bound " << bound << " ms");
    CHECK(res.far_wait_ms <= bound);
    CHECK(res.far_wait_ms > 0.0);  // not served at once: the hot region is nearer
  }
}

TEST_CASE("the forcing family serves the far request once it is too old (JW sec. 5.1)",
          "[rotational][starvation][forcing]") {
  // Once f has waited `age`, every pick belongs to a forcing round (f is too old), and
  // each round serves the oldest request left. Older than f are at most the `depth`
  // hot requests queued when it arrived, so f is the target of round depth + 1 at the
  // latest. A round starts at a completion (the first one at most S after f turns too
  // old); its target's transfer starts within P of the round's start (SATFUF: slotted
  // requests never delay it) or P + D rotations (SATFDF, SATFGDF: the deadline), and
  // it completes at most S later, starting the next round. So f waits at most
  //     age + S + depth * (P + D*T + S) + P + D*T.
  auto m = load_model("hp97560");
  auto cfg = disk_stream();
  std::vector<std::uint64_t> targets = cfg.hot_lbas;
  targets.push_back(cfg.far_lba);
  const Millis P = max_positioning(*m, {1000, 1001, 1900}, targets);
  const Millis T = m->rotation_ms();
  INFO("P = " << P << " ms");
  for (const char* spec : {"satfuf:age=500ms", "satfuf:age=200ms,n=3", "satfdf:age=500ms,d=5",
                           "satfdf:age=300ms,n=2,d=2", "satfgdf:age=500ms,d=5", "satfgdf:age=300ms,d=1"}) {
    INFO(spec);
    auto [a, params] = Registry::builtin().parse(spec);
    const Millis age = params.number("age");
    const double d = params.numbers_.count("d") ? params.number("d") : 0.0;
    const auto res = run_adversarial(make(spec, *m), *m, cfg);
    REQUIRE(res.far_served);
    const Millis S = res.max_service_ms;
    const Millis bound = age + S + cfg.depth * (P + d * T + S) + P + d * T;
    INFO("waited " << res.far_wait_ms << " ms, bound " << bound << " ms");
    CHECK(res.far_wait_ms <= bound);
    CHECK(res.far_wait_ms >= age);  // before it is too old, SATF keeps to the hot region
  }
}

TEST_CASE("BSATF serves the far request within two batches; LBSATF within two deadlines "
          "(JW sec. 5.2)",
          "[rotational][starvation][batch]") {
  auto m = load_model("hp97560");
  auto cfg = disk_stream();
  {
    // The batch in progress when f arrives holds at most `depth` requests (the closed
    // loop keeps that many queued); the next holds the `depth` then queued and f. So at
    // most 2 * depth dispatches come between f's arrival and f.
    const auto res = run_adversarial(make("bsatf", *m), *m, cfg);
    REQUIRE(res.far_served);
    CHECK(res.dispatches_before_far <= 2 * cfg.depth);
  }
  {
    // LBSATF's batch in progress ends by its deadline: its first plan of at most
    // `depth` requests, each at most P + X (positioning bound plus the longest transfer
    // and completion, X <= S); newcomers only fill gaps. f is in the next batch, of at
    // most depth + 1 requests, which ends by its own deadline. f waits at most
    // (2 * depth + 1) * (P + S).
    std::vector<std::uint64_t> targets = cfg.hot_lbas;
    targets.push_back(cfg.far_lba);
    const Millis P = max_positioning(*m, {1000, 1001, 1900}, targets);
    const auto res = run_adversarial(make("lbsatf", *m), *m, cfg);
    REQUIRE(res.far_served);
    const Millis bound = (2 * cfg.depth + 1) * (P + res.max_service_ms);
    INFO("waited " << res.far_wait_ms << " ms, bound " << bound << " ms");
    CHECK(res.far_wait_ms <= bound);
  }
}

TEST_CASE("WSTF and GSTF admit=frozen bound the wait; GSTF admit=all does not "
          "(Huang & Chiueh, reconstructed)",
          "[rotational][starvation]") {
  auto m = load_model("hp97560");
  auto cfg = disk_stream();
  {
    // Past T_max the far request's weighted time is 0, the least possible; only hot
    // requests older than it (at most depth, also overdue) and the dispatch in progress
    // can precede it then: it waits at most T_max + (depth + 1) * S.
    const auto res = run_adversarial(make("wstf:tmax=400ms", *m), *m, cfg);
    REQUIRE(res.far_served);
    CHECK(res.far_wait_ms <= 400.0 + (cfg.depth + 1) * res.max_service_ms);
  }
  {
    // Frozen groups: a visit to the hot group serves only the (at most depth) requests
    // present when it began, then the sweep moves on; the far group comes within the
    // next visit elsewhere: at most 2 * depth dispatches.
    const auto res = run_adversarial(make("gstf:group=100,admit=frozen", *m), *m, cfg);
    REQUIRE(res.far_served);
    CHECK(res.dispatches_before_far <= 2 * cfg.depth);
  }
}
