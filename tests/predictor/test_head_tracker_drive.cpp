// The head tracker over a drive of today with its buffer (sata7200-8tb: read-ahead and
// write-behind), in virtual time: a "true" drive (the same DriveCache, its own platter
// phase) starts each request some time after its dispatch and its completion is seen
// some time after it happens, as on a host. The tracker's predictions are made at
// dispatch with delta; delta must be calibrated from completions as on the platter alone.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <memory>

#include "bench/experiments/workload/workload.hpp"
#include "predictor/datasheet_profiles.hpp"
#include "predictor/device_model.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/drive_cache.hpp"
#include "predictor/head_tracker.hpp"

using namespace disksched;

namespace {

// A drive that takes a command `in_ms` after its dispatch and whose completion is seen
// `out_ms` after it.
struct TrueDrive {
  std::unique_ptr<DeviceModel> model = load_model("sata7200-8tb");
  Spin spin;
  DriveCache drive;
  Millis in_ms, out_ms;

  TrueDrive(double phase, Millis in, Millis out)
      : spin(Spin::anchored(0.0, phase, model->rotation_ms())),
        drive(*model, *drive_params_of(*model), model->initial_state()), in_ms(in), out_ms(out) {}

  // A 4 KiB read at sector `lba` dispatched at `dispatch` to an idle drive: when its
  // completion is seen.
  Millis read(Millis dispatch, std::uint64_t lba) {
    const DriveResult r = drive.serve(dispatch + in_ms, Op::Read, lba, 8, false, spin);
    return r.cost.end.time_ms + out_ms;
  }
};

struct Run {
  int within = 0, n = 0;
};

// `count` random reads with idle gaps of 0 to `gap_ms` (30 ms: the platter anywhere at
// each dispatch; 0: back to back, as under a closed load), ids from `first`; counts
// those predicted within one sector time.
Run serve(TrueDrive& dev, HeadTracker& tracker, Rng& rng, Millis& now, std::uint64_t first,
          int count, Millis gap_ms = 30.0) {
  const DeviceModel& m = *dev.model;
  const std::uint64_t slots = m.capacity_bytes() / 512 - 8;
  Run run;
  for (std::uint64_t id = first; id < first + count; ++id) {
    const std::uint64_t lba = rng.below(slots);
    const Millis predicted = tracker.dispatched(id, now, Op::Read, lba * 512, 4096).completion_ms();
    const Millis done = dev.read(now, lba);
    ++run.n;
    run.within += std::abs(predicted - done) <= m.sector_time_ms();
    tracker.completed(id, done, true);
    now = done + rng.uniform() * gap_ms;
  }
  return run;
}

}  // namespace

TEST_CASE("calibrate_delta finds a buffered drive's hidden overhead from its misses",
          "[filter][head_tracker]") {
  const Millis in = 0.30, out = 0.12;  // delta 0.42 ms, 184 sectors of the outer zone
  TrueDrive dev(0.37, in, out);
  auto model = load_model("sata7200-8tb");
  const Millis period = model->rotation_ms(), sector = model->sector_time_ms();
  HeadTracker tracker(*model, {0.0, 128});
  REQUIRE(tracker.knows_hits());
  Rng rng(2026);
  Millis now = 0.5;
  const Run before = serve(dev, tracker, rng, now, 1, 129);
  // With delta 0 the tracker's platter lags the true one by in + out: requests whose
  // sector the drive just missed are predicted to catch it.
  REQUIRE(before.within < before.n - 1);

  const auto samples = tracker.samples();
  REQUIRE(samples.size() == 128);
  // Each sample is predicted right for every delta that leaves its rotational wait on
  // the same turn as the truth: delta in (L + wait - period, L + wait], L = in + out and
  // wait the true one (the one predicted with delta 0, less L, on the circle).
  Millis lo = -INFINITY, hi = INFINITY;
  for (const TrackerSample& s : samples) {
    REQUIRE(s.shifted.has_value());
    REQUIRE(s.shifted->delta_ms == 0.0);
    Millis wait = s.shifted->rotation_ms - (in + out);
    wait -= std::floor(wait / period) * period;
    lo = std::max(lo, in + out + wait - period);
    hi = std::min(hi, in + out + wait);
  }
  REQUIRE(lo < in + out);
  REQUIRE(in + out <= hi);
  const Calibration c = calibrate_delta(*model, samples);
  REQUIRE(c.samples == 128);
  REQUIRE(c.within == 1.0);
  INFO("calibrated delta " << c.delta_ms << " ms, true " << in + out << ", plateau " << lo
                           << " to " << hi);
  REQUIRE(c.delta_ms >= lo - sector);
  REQUIRE(c.delta_ms <= hi + sector);

  // With it, a later request is mispredicted only when its wait is shorter than the
  // plateau's error (a rotation more or less).
  tracker.set_delta_ms(c.delta_ms);
  const Run after = serve(dev, tracker, rng, now, 1000, 400);
  INFO(after.within << " of " << after.n << " within a sector (before: " << before.within
                    << " of " << before.n << ")");
  const double off = std::abs(c.delta_ms - (in + out)) / period;
  REQUIRE(after.within >= after.n - static_cast<int>(std::ceil(3 * off * after.n)) - 1);
  REQUIRE(after.within * before.n > before.within * after.n);
}

TEST_CASE("a drive's read that waited for a destage is no calibration sample",
          "[filter][head_tracker]") {
  // sata7200-8tb with its segments' write-behind on (the profile's is write-through).
  DiskProfile p = *datasheet_builtin("sata7200-8tb");
  p.drive.cache.fast_write = 2;
  p.drive.cache.write_buffer_bytes = 0;
  const DiskModel model(p);
  HeadTracker tracker(model, {0.0, 128});
  REQUIRE(tracker.knows_hits());
  // A write taken behind completes in bus time; a read dispatched at once waits for its
  // destage, so it starts later than dispatch + delta.
  const Millis w = tracker.dispatched(1, 1.0, Op::Write, 4096ull * 1000000, 4096).completion_ms();
  REQUIRE(w < 1.5);
  tracker.completed(1, w, true);
  REQUIRE(tracker.samples_recorded() == 0);  // from the buffer: tells nothing of the platter
  const Millis r = tracker.dispatched(2, w, Op::Read, 4096ull * 900000000, 4096).completion_ms();
  tracker.completed(2, r, true);
  REQUIRE(tracker.samples_recorded() == 0);
  // Long after, the mechanism is free: a read is a sample.
  const Millis q = tracker.dispatched(3, r + 100.0, Op::Read, 4096ull * 5000, 4096).completion_ms();
  tracker.completed(3, q, true);
  REQUIRE(tracker.samples_recorded() == 1);
  REQUIRE(tracker.samples().back().shifted.has_value());
}

TEST_CASE("a drive's read caught a rotation sooner than predicted does not drag the next ones",
          "[filter][head_tracker]") {
  // Delta too large by 43 us: a request whose true rotational wait is shorter than that
  // is predicted to miss its sector and take a rotation more. Back to back, the buffer's
  // model then had its mechanism busy a rotation too long, and the requests after it
  // were predicted from there: a rotation late in streaks (552 of 1990 before the
  // tracker restarted the buffer's timeline at such a completion).
  const Millis in = 0.086, out = 0.031, excess = 0.043;
  TrueDrive dev(0.37, in, out);
  auto model = load_model("sata7200-8tb");
  HeadTracker tracker(*model, {in + out + excess, 128});
  Rng rng(5);
  Millis now = 0.5;
  const Run run = serve(dev, tracker, rng, now, 1, 2000, 0.0);
  const int expected_misses = static_cast<int>(std::ceil(excess / model->rotation_ms() * run.n));
  INFO(run.within << " of " << run.n << " within a sector; " << tracker.drive_resyncs()
                  << " restarts; misses expected from the excess alone: " << expected_misses);
  REQUIRE(tracker.drive_resyncs() > 0);
  REQUIRE(run.n - run.within <= 3 * expected_misses + 1);
}
