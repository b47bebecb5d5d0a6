// The emulated device's timing, exactly, in device time: FIFO service, head-state
// chaining, sector widening, jitter and rpm error.
#include <cmath>
#include <memory>

#include <catch2/catch.hpp>

#include "emulator/device/virtual_device.hpp"
#include "predictor/disk_model.hpp"

using namespace disksched;

namespace {

double frac(double x) { return x - std::floor(x); }

// Distance between two angles on the circle, in rotations [0, 0.5].
double angle_gap(double a, double b) {
  double d = frac(a - b);
  return std::min(d, 1.0 - d);
}

}  // namespace

TEST_CASE("one request at a time: start = max(arrival, previous completion)", "[diskemu]") {
  VirtualDevice dev(load_model("fixed:ms=10"));
  Service a = dev.serve(0.0, Op::Read, 0, 4096);
  Service b = dev.serve(5.0, Op::Write, 8192, 4096);    // arrives while a is served
  Service c = dev.serve(30.0, Op::Read, 0, 512);        // arrives to an idle device
  CHECK(a.seq == 0);
  CHECK(b.seq == 1);
  CHECK(c.seq == 2);
  CHECK(a.start_ms == 0.0);
  CHECK(a.completion_ms == 10.0);
  CHECK(b.start_ms == 10.0);
  CHECK(b.wait_ms() == 5.0);
  CHECK(b.completion_ms == 20.0);
  CHECK(c.start_ms == 30.0);
  CHECK(c.wait_ms() == 0.0);
  CHECK(c.completion_ms == 40.0);
  CHECK(dev.head().time_ms == 40.0);
  CHECK(dev.served() == 3);
}

TEST_CASE("each request is costed from where the previous one left the head", "[diskemu]") {
  VirtualDevice dev(load_model("hp97560"));
  auto reference = load_model("hp97560");
  struct Req { Millis arrival; Op op; std::uint64_t offset; std::uint32_t length; };
  const Req reqs[] = {{0.0, Op::Read, 700'000'000, 8192},  {1.0, Op::Write, 4096, 4096},
                      {60.0, Op::Read, 1'300'000'000, 65536}, {61.0, Op::Flush, 0, 0},
                      {62.0, Op::Read, 1'300'065'536, 4096}};
  HeadState head = reference->initial_state();
  for (const Req& r : reqs) {
    const Service s = dev.serve(r.arrival, r.op, r.offset, r.length);
    HeadState from = head;
    from.time_ms = std::max(r.arrival, head.time_ms);
    const Cost expected = reference->service(from, r.op, r.offset, r.length);
    CHECK(s.start_ms == from.time_ms);
    CHECK(s.cost.seek_ms == expected.seek_ms);
    CHECK(s.cost.rotation_ms == expected.rotation_ms);
    CHECK(s.cost.transfer_ms == expected.transfer_ms);
    CHECK(s.completion_ms == expected.end.time_ms);
    CHECK(s.completion_ms == Approx(s.start_ms + expected.service_ms()).margin(1e-9));
    CHECK(dev.head().cylinder == expected.end.cylinder);
    CHECK(dev.head().head == expected.end.head);
    head = expected.end;
  }
  // The second request had to seek back from cylinder ~1000 to cylinder 0.
  CHECK(dev.served() == 5);
}

TEST_CASE("a partial sector costs a whole sector", "[diskemu]") {
  VirtualDevice a(load_model("hp97560")), b(load_model("hp97560"));
  const Service part = a.serve(3.0, Op::Read, 1'000'000 * 512 + 100, 10);
  const Service whole = b.serve(3.0, Op::Read, 1'000'000 * 512, 512);
  CHECK(part.completion_ms == whole.completion_ms);
  CHECK(part.cost.transfer_ms == whole.cost.transfer_ms);
  // Straddling a sector boundary costs two.
  VirtualDevice c(load_model("hp97560")), d(load_model("hp97560"));
  CHECK(c.serve(3.0, Op::Read, 1'000'000 * 512 + 500, 24).cost.transfer_ms ==
        d.serve(3.0, Op::Read, 1'000'000 * 512, 1024).cost.transfer_ms);
}

TEST_CASE("a request beyond the device throws and leaves the state alone", "[diskemu]") {
  VirtualDevice dev(load_model("hp97560"));
  dev.serve(0.0, Op::Read, 0, 4096);
  const HeadState before = dev.head();
  const std::uint64_t cap = dev.model().capacity_bytes();
  CHECK_THROWS_AS(dev.serve(50.0, Op::Read, cap - 512, 1024), ModelError);
  CHECK_THROWS_AS(dev.serve(50.0, Op::Read, cap, 512), ModelError);
  CHECK_THROWS_AS(dev.serve(50.0, Op::Write, ~0ull - 100, 512), ModelError);
  CHECK(dev.served() == 1);
  CHECK(dev.head().time_ms == before.time_ms);
  CHECK(dev.head().cylinder == before.cylinder);
  CHECK_NOTHROW(dev.serve(50.0, Op::Read, cap - 512, 512));
}

TEST_CASE("jitter is added after the transfer and delays what follows", "[diskemu]") {
  DeviceOptions opt;
  opt.jitter = parse_jitter("uniform:2ms");
  opt.jitter_seed = 42;
  VirtualDevice dev(load_model("fixed:ms=10"), opt);
  Jitter same(opt.jitter, 42);
  Millis expected_end = 0.0;
  for (int i = 0; i < 1000; ++i) {
    const Service s = dev.serve(0.0, Op::Read, 0, 512);
    const Millis j = same.sample();
    CHECK(s.jitter_ms == j);
    CHECK(s.start_ms == expected_end);
    CHECK(s.completion_ms == s.cost.end.time_ms + j);
    CHECK(s.cost.end.time_ms == s.start_ms + 10.0);
    REQUIRE(j >= 0.0);
    REQUIRE(j <= 2.0);
    expected_end = s.completion_ms;
  }
}

TEST_CASE("jitter distributions have the stated mean", "[diskemu]") {
  // Fixed seeds: these are exact, repeatable checks of the generator, not of luck.
  Jitter e(parse_jitter("exp:50us"), 7), u(parse_jitter("uniform:0.1ms"), 7);
  const int n = 200'000;
  double se = 0, su = 0, max_u = 0;
  for (int i = 0; i < n; ++i) {
    se += e.sample();
    const double x = u.sample();
    su += x;
    max_u = std::max(max_u, x);
  }
  CHECK(se / n == Approx(0.05).epsilon(0.01));   // standard error ~0.2%
  CHECK(su / n == Approx(0.05).epsilon(0.01));
  CHECK(max_u <= 0.1);
  Jitter none(parse_jitter("none"), 7);
  CHECK(none.sample() == 0.0);
}

TEST_CASE("rpm-error: the true platter turns (1+E) times as fast", "[diskemu]") {
  DeviceOptions opt;
  opt.rpm_error = parse_rpm_error("1%");
  VirtualDevice dev(load_model("hp97560"), opt);
  auto nominal = load_model("hp97560");
  const Millis T = nominal->rotation_ms();
  const double a0 = nominal->angle_at(0.0);
  for (Millis t : {0.0, 1.0, 14.9, 1000.0, 123456.789}) {
    CHECK(dev.true_angle_at(t) == Approx(frac(a0 + t * 1.01 / T)).margin(1e-9));
  }
  // No error: the model's own angle.
  VirtualDevice plain(load_model("hp97560"));
  CHECK(plain.true_angle_at(1234.5) == nominal->angle_at(1234.5));
}

TEST_CASE("rpm-error drift integrates the changing speed", "[diskemu]") {
  DeviceOptions opt;
  opt.rpm_error = parse_rpm_error("0.002,drift=0.001");   // +0.1% per second
  VirtualDevice dev(load_model("hp97560"), opt);
  auto nominal = load_model("hp97560");
  const Millis T = nominal->rotation_ms();
  const double a0 = nominal->angle_at(0.0);
  for (Millis t : {0.0, 500.0, 10'000.0}) {
    const double turns = (t * 1.002 + 0.001 * t * t / 2000.0) / T;
    CHECK(dev.true_angle_at(t) == Approx(frac(a0 + turns)).margin(1e-9));
  }
  CHECK(opt.rpm_error.speed_factor(10'000.0) == Approx(1.012));
}

TEST_CASE("with rpm-error, transfers start when the TRUE platter brings the sector", "[diskemu]") {
  auto geometry = load_model("hp97560");
  for (const char* err : {"0", "0.5%", "-0.3%,drift=0.01%"}) {
    DeviceOptions opt;
    opt.rpm_error = parse_rpm_error(err);
    VirtualDevice dev(load_model("hp97560"), opt);
    // Track starts, so the 8 sectors never cross a track (no head switch inside).
    const std::uint64_t offsets[] = {0, 512ull * 72 * 13'001, 512ull * 72 * 27'777, 512ull * 72};
    Millis arrival = 0.0;
    for (std::uint64_t off : offsets) {
      const Service s = dev.serve(arrival, Op::Read, off, 4096);
      const Location loc = geometry->locate(off / 512, 8, Op::Read);
      const Millis transfer_start = s.start_ms + s.cost.overhead_ms + s.cost.seek_ms + s.cost.rotation_ms;
      INFO("rpm-error=" << err << " offset=" << off);
      // Within a request the speed is held at its value at the start (rpm_error.hpp), so
      // with drift the angle may be off by at most D dt^2 / 2000 / T rotations.
      const Millis dt = transfer_start - s.start_ms;
      const double bound = std::abs(opt.rpm_error.drift_per_s) * dt * dt / 2000.0 /
                               geometry->rotation_ms() + 1e-9;
      CHECK(angle_gap(dev.true_angle_at(transfer_start), loc.angle) <= bound);
      // 8 sectors on one track take 8/72 of the true rotation.
      const double f = opt.rpm_error.speed_factor(s.start_ms);
      CHECK(s.cost.transfer_ms == Approx(8.0 / 72.0 * geometry->rotation_ms() / f).epsilon(1e-9));
      arrival = s.completion_ms + 3.7;
    }
  }
}

TEST_CASE("rpm-error on a device that does not rotate is refused", "[diskemu]") {
  DeviceOptions opt;
  opt.rpm_error = parse_rpm_error("0.01");
  CHECK_THROWS_WITH(VirtualDevice(load_model("fixed:ms=1"), opt),
                    Catch::Contains("rpm-error") && Catch::Contains("does not rotate"));
}
