// Delta calibration over a device the model cannot describe backs off and gives up
// (LiveCore::adopt_calibration), counted in attempts in virtual time: each attempt
// replays every sample at every candidate delta, which over the memory plugin under a
// disk geometry cost about 35 us of CPU a request when it ran every 128 requests.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "daemon/filter/live_core.hpp"
#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;

namespace {

struct Attempt {
  std::uint64_t request;  // completions so far when it ran
  bool gave_up;           // adopt_calibration said so
  unsigned poor;          // poor attempts in a row, this one included
};

// Serves `n` requests one at a time (the device idle at each arrival), each taking
// `service(i)` model ms, and runs every calibration that comes due as the filter's
// thread does (calibrate_delta on a model instance of its own).
std::vector<Attempt> serve(LiveCore& core, const char* model, std::uint64_t n,
                           const std::function<Millis(std::uint64_t)>& service) {
  auto scratch = load_model(model);
  std::vector<Attempt> attempts;
  std::vector<std::uint64_t> dispatched;
  Millis t = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const RequestRecord r = RequestRecord::arriving(Op::Read, (i * 7919 % 4096) * 65536, 4096);
    const std::uint64_t id = core.arrive(r, t, dispatched);
    REQUIRE(dispatched.size() == 1);
    dispatched.clear();
    t += service(i);
    core.complete(id, t, true, dispatched);
    t += 1.0;
    if (!core.calibration_due()) continue;
    const auto samples = core.take_calibration_samples();
    const bool gave_up = core.adopt_calibration(calibrate_delta(*scratch, samples));
    attempts.push_back({i + 1, gave_up, core.poor_calibrations()});
  }
  return attempts;
}

LiveCore make_core(const char* model, std::size_t every) {
  LiveCore::Options o;
  o.calibrate_first = 16;
  o.calibrate_every = every;
  auto m = load_model(model);
  auto s = make_scheduler("fcfs", *m);
  return LiveCore(std::move(m), std::move(s), o);
}

}  // namespace

TEST_CASE("calibration over a device the geometry does not describe backs off, then stops",
          "[filter][calibration]") {
  // The memory plugin under sched-geometry=hp97560: every request done in 10 us.
  LiveCore core = make_core("hp97560", 8);
  const std::uint64_t requests = 20000;
  const auto attempts = serve(core, "hp97560", requests, [](std::uint64_t) { return 0.01; });

  REQUIRE(core.calibration_gave_up());
  REQUIRE_FALSE(core.calibration_due());
  // Said once: the last attempt, and no other.
  REQUIRE(attempts.back().gave_up);
  for (std::size_t i = 0; i + 1 < attempts.size(); ++i) CHECK_FALSE(attempts[i].gave_up);
  // Each poor attempt (one with LiveCore::kJudgedSamples samples or more) came twice as
  // long after the one before as that one after its own predecessor.
  std::vector<std::uint64_t> judged;
  unsigned poor = 0;
  for (const Attempt& a : attempts) {
    if (a.gave_up || a.poor > poor) judged.push_back(a.request);
    if (!a.gave_up) poor = a.poor;
  }
  REQUIRE(judged.size() == LiveCore::kPoorCalibrations);
  REQUIRE(poor == LiveCore::kPoorCalibrations - 1);
  for (std::size_t i = 2; i < judged.size(); ++i)
    CHECK(judged[i] - judged[i - 1] == 2 * (judged[i - 1] - judged[i - 2]));
  // Without the back-off it would have run every 8 requests all along.
  CHECK(attempts.size() < requests / 8 / 50);
  CHECK(attempts.back().request < requests);
}

TEST_CASE("a good calibration brings the wait back to calibrate_every", "[filter][calibration]") {
  // fixed:ms=5 predicts 5 ms plus delta. First a device whose service scatters over
  // 10 ms (no delta predicts half of it), then one that takes 5.3 ms every time.
  LiveCore core = make_core("fixed:ms=5", 8);
  const std::uint64_t scattered = 200;
  const auto attempts = serve(core, "fixed:ms=5", scattered + 400, [&](std::uint64_t i) {
    return i < scattered ? 5.0 + static_cast<Millis>(i % 10) : 5.3;
  });

  REQUIRE_FALSE(core.calibration_gave_up());
  REQUIRE(core.poor_calibrations() == 0);
  REQUIRE(core.tracker().delta_ms() == Approx(0.3));
  // Once the window holds only good samples the attempts come every 8 requests again.
  REQUIRE(attempts.size() >= 3);
  const auto n = attempts.size();
  CHECK(attempts[n - 1].request - attempts[n - 2].request == 8);
  CHECK(attempts[n - 2].request - attempts[n - 3].request == 8);
  // While the service scattered they were further apart than that.
  bool backed_off = false;
  for (std::size_t i = 1; i < n && attempts[i].request <= scattered + 128; ++i)
    backed_off = backed_off || attempts[i].request - attempts[i - 1].request > 8;
  CHECK(backed_off);
}

TEST_CASE("a drive of today is judged at what the host resolves, not at its 2.3 us sector",
          "[filter][calibration]") {
  auto model = load_model("sata7200-8tb");
  const Millis period = model->rotation_ms(), sector = model->sector_time_ms();
  REQUIRE(sector < 0.003);
  // Samples whose completions the geometry predicts but for the host's report jitter
  // (0-30 us, a dozen sectors), or not at all (anywhere in a rotation).
  auto samples_with = [&](const std::function<Millis(std::uint64_t)>& off) {
    std::vector<TrackerSample> v;
    for (std::uint64_t i = 0; i < 200; ++i) {
      TrackerSample s;
      s.from.spin.period_ms = period;
      const Millis wait = period * static_cast<double>(i * 37 % 100) / 100.0;
      s.shifted = TrackerSample::Shifted{0.0, 5.0 + wait, wait, period};
      s.dispatch_ms = 20.0 * static_cast<double>(i);
      s.complete_ms = s.dispatch_ms + 5.0 + wait + off(i);
      v.push_back(s);
    }
    return v;
  };
  const auto jittered = samples_with([](std::uint64_t i) { return 0.03 * (i * 7 % 10) / 9.0; });
  const auto unrelated = samples_with([&](std::uint64_t i) { return period * (i * 13 % 17) / 17.0; });
  // At a sector's tolerance both look alike: most samples missed.
  CHECK(calibrate_delta(*model, jittered).within < 0.5);
  CHECK(calibrate_delta(*model, unrelated).within < 0.5);
  // Judged within 0.1 ms, the jittered ones are predicted, the unrelated ones are not.
  const Calibration j = LiveCore::calibrate_judged(*model, jittered, nullptr, 0.1);
  const Calibration u = LiveCore::calibrate_judged(*model, unrelated, nullptr, 0.1);
  CHECK(j.within > 0.9);
  CHECK(u.within < 0.5);
  CHECK(j.delta_ms == calibrate_delta(*model, jittered).delta_ms);  // the sector's delta
  // Fed to the back-off, the first is a good attempt, the second a poor one.
  LiveCore a = make_core("sata7200-8tb", 128), b = make_core("sata7200-8tb", 128);
  a.adopt_calibration(j);
  b.adopt_calibration(u);
  CHECK(a.poor_calibrations() == 0);
  CHECK(b.poor_calibrations() == 1);
}
