// The head tracker over a device with a volatile write cache its profile does not
// describe (diskemu write-cache= on the HP 97560), in device time, exactly: once it has
// seen writes complete long before their media could, it predicts a write as taken into
// the buffer (overhead only, the head stays) and no longer re-anchors the platter on
// one, so cached writes are predicted within one sector time.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <random>

#include <catch2/catch.hpp>

#include "emulator/device/virtual_device.hpp"
#include "predictor/head_tracker.hpp"

using namespace disksched;

namespace {

struct Within {
  int writes = 0, writes_within = 0, reads = 0, reads_within = 0;
  bool writes_buffered = false;  // what the tracker learnt
};

// `n` requests at depth 1 with idle gaps of 0-40 ms, a fraction `reads` of them reads
// (4 KiB, anywhere), the completion observed when the device completes it (delta 0).
Within run(double reads, int n) {
  auto model = load_model("hp97560");
  DeviceOptions o;
  o.write_cache = WriteCacheOptions{1 << 20, 1.0};
  VirtualDevice dev(*model, o);
  HeadTracker tracker(*model, HeadTracker::Options{0.0, 64});
  const Millis sector = model->rotation_ms() / 72.0;
  std::mt19937_64 rng(5);
  const std::uint64_t blocks = model->capacity_bytes() / 4096;
  Within w;
  Millis now = 1.0;
  for (int id = 1; id <= n; ++id) {
    const Op op = static_cast<double>(rng() % 1000) / 1000.0 < reads ? Op::Read : Op::Write;
    const std::uint64_t offset = rng() % blocks * 4096;
    const Millis predicted = tracker.dispatched(id, now, op, offset, 4096).completion_ms();
    const Millis done = dev.serve(now, op, offset, 4096).completion_ms;
    const bool within = std::abs(predicted - done) <= sector;
    if (id > 16) {  // the tracker has had its evidence
      (op == Op::Write ? w.writes : w.reads) += 1;
      (op == Op::Write ? w.writes_within : w.reads_within) += within;
    }
    tracker.completed(id, done, true);
    now = done + static_cast<double>(rng() % 4000) / 100.0;
  }
  w.writes_buffered = tracker.writes_buffered();
  return w;
}

}  // namespace

TEST_CASE("the head tracker learns that writes are taken into a buffer", "[write-cache][tracker]") {
  const Within w = run(0.0, 200);
  REQUIRE(w.writes == 184);
  CHECK(w.writes_buffered);
  CHECK(w.writes_within == w.writes);  // each an overhead from where it was sent
}

TEST_CASE("the head tracker over cached writes and reads: writes within a sector",
          "[write-cache][tracker]") {
  const Within w = run(0.5, 400);
  std::cout << "tracker over write-cache=1M, 50% reads: writes within one sector "
            << w.writes_within << "/" << w.writes << ", reads " << w.reads_within << "/"
            << w.reads << "\n";
  CHECK(w.writes_within == w.writes);
  // Reads: the destages between them move the head where the host cannot see; the
  // tracker predicts from where the last read left it, right only when no destage came
  // between (or the head came back).
  CHECK(w.reads_within > 0);
}
