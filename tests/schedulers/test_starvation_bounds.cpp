// Starvation bounds on an adversarial stream (adversarial_stream.hpp): a hot region
// kept busy by a closed loop of `depth` requests, plus one far request. The aged and
// class-aware schedulers serve the far request within a bound derived here from their
// rules; SSTF (JW sec. 2, DN sec. 1) and ZSPTF (Hong sec. 6) are shown to starve it,
// which is the contrast the bounded algorithms exist for.
#include <cmath>

#include "schedulers/mems/zone_grid.hpp"
#include "tests/schedulers/adversarial_stream.hpp"
#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

// HP 97560: 19 x 72 = 1368 blocks per cylinder. Hot: cylinders 1000-1001; far: 1900.
AdversarialStream disk_stream() {
  AdversarialStream a;
  a.hot_lbas = hot_cylinders(1368, 1000, 2, 16);
  a.far_lba = 1900 * 1368;
  return a;
}

}  // namespace

TEST_CASE("SSTF starves the far request (JW sec. 2; DN sec. 1, 'Problem')", "[starvation]") {
  auto m = hp97560();
  for (const char* spec : {"sstf", "sstf:by=lbn", "sswt:threshold=1000000000"}) {
    INFO(spec);
    auto cfg = disk_stream();
    auto res = run_adversarial(make(spec, *m), *m, cfg);
    CHECK_FALSE(res.far_served);
    CHECK(res.dispatches_before_far == cfg.max_dispatches);
  }
}

TEST_CASE("SSWT serves the far request within threshold + depth dispatches (DN sec. 4)",
          "[starvation][sswt]") {
  // At the k-th dispatch after its arrival the far request's wait count is k. Once k
  // reaches the threshold only requests with larger counts, i.e. added before it, can
  // go first, and at most `depth` hot requests were queued when it arrived. So it is
  // dispatched after at most threshold + depth others.
  auto m = hp97560();
  for (int threshold : {600, 50, 0}) {
    INFO("threshold " << threshold);
    auto cfg = disk_stream();
    auto res = run_adversarial(make("sswt:threshold=" + std::to_string(threshold), *m), *m, cfg);
    REQUIRE(res.far_served);
    CHECK(res.dispatches_before_far <= static_cast<std::size_t>(threshold) + cfg.depth);
    // And not before its count is due: until then SSTF by LBN keeps to the hot region.
    CHECK(res.dispatches_before_far >= static_cast<std::size_t>(threshold));
  }
}

TEST_CASE("priority with a timeout serves a starved noncritical request within timeout + one "
          "service (GP sec. 6.3)",
          "[starvation][priority]") {
  // Hot requests are time-critical, so the high queue is never empty and the low queue
  // never runs. The far noncritical request times out `timeout` after arriving and
  // goes first at the next dispatch, which comes at most one service time later.
  auto m = hp97560();
  auto cfg = disk_stream();
  cfg.hot_class = IoClass::TimeCritical;
  cfg.far_class = IoClass::TimeNoncritical;
  // The default times out at 500 ms: GP's original (timeout=0) starves, below.
  for (const char* spec : {"priority", "priority:timeout=500ms", "priority:variant=2,timeout=200ms",
                           "priority:timeout=500ms,queues=3", "priority:timeout=500ms,high=satf"}) {
    INFO(spec);
    auto s = make(spec, *m);
    auto [a, params] = Registry::builtin().parse(spec);
    const Millis timeout = params.number("timeout");
    auto res = run_adversarial(std::move(s), *m, cfg);
    REQUIRE(res.far_served);
    CHECK(res.far_wait_ms >= timeout);
    CHECK(res.far_wait_ms <= timeout + res.max_service_ms);
  }
  SECTION("without a timeout, or with GP's literal 'move to the high queue', it starves") {
    // With expired=mix the timed-out request joins the high queue, where shortest seek
    // keeps preferring the hot region: GP's timeout bounds waiting only when the high
    // queue drains now and then.
    for (const char* spec : {"priority:timeout=0", "priority:timeout=500ms,expired=mix"}) {
      INFO(spec);
      auto res = run_adversarial(make(spec, *m), *m, cfg);
      CHECK_FALSE(res.far_served);
    }
  }
}

TEST_CASE("ZTSPTF serves the far zone within depth dispatches; ZSPTF starves it "
          "(Hong sec. 6, 7.3)",
          "[starvation][zones]") {
  // With requests in only two zones, ZTSPTF finishes at most the hot requests queued
  // when it began the hot zone (at most `depth`) and then moves to the next zone with
  // requests: the far one. ZSPTF stays while the hot zone has work, which the closed
  // loop ensures forever.
  auto m = mems_model_or_fake();
  const mems::ZoneGrid grid(120, 1200);  // the schedulers' default zones
  auto cell = [&](std::uint64_t lba) {
    Location l = m->locate(lba, 16, Op::Read);
    return grid.cell(l.cylinder, l.y);
  };
  AdversarialStream cfg;
  const mems::ZoneCell hot = cell(0);
  const std::uint64_t blocks = m->capacity_bytes() / m->sector_bytes();
  for (std::uint64_t b = 0; b + 16 < blocks && cfg.hot_lbas.size() < 32; b += 16)
    if (cell(b) == hot) cfg.hot_lbas.push_back(b);
  REQUIRE(cfg.hot_lbas.size() >= 4);
  cfg.far_lba = (blocks / 2) / 16 * 16;
  REQUIRE_FALSE(cell(cfg.far_lba) == hot);

  auto bounded = run_adversarial(make("ztsptf", *m), *m, cfg);
  REQUIRE(bounded.far_served);
  CHECK(bounded.dispatches_before_far <= cfg.depth);

  auto starved = run_adversarial(make("zsptf", *m), *m, cfg);
  CHECK_FALSE(starved.far_served);
}
