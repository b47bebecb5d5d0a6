// diskemu's parameters: values parsed as documented, bad ones refused with a message
// that names the key and what was expected.
#include <catch2/catch.hpp>

#include "emulator/diskemu/config.hpp"
#include "emulator/device/duration.hpp"

using namespace disksched;
using namespace disksched::diskemu;
using Catch::Contains;

TEST_CASE("durations need a unit", "[diskemu][config]") {
  CHECK(parse_duration_ms("50us") == Approx(0.05));
  CHECK(parse_duration_ms("0.2ms") == Approx(0.2));
  CHECK(parse_duration_ms("1s") == Approx(1000.0));
  CHECK(parse_duration_ms("250ns") == Approx(0.00025));
  CHECK(parse_duration_ms("1e3us") == Approx(1.0));
  CHECK_THROWS_WITH(parse_duration_ms("50"), Contains("'50'") && Contains("unit"));
  CHECK(parse_duration_ms("0") == 0.0);
  CHECK_THROWS_WITH(parse_duration_ms("ms"), Contains("not a duration"));
  CHECK_THROWS_WITH(parse_duration_ms("5 ms"), Contains("not a duration"));
  CHECK_THROWS_WITH(parse_duration_ms("fastms"), Contains("not a duration"));
}

TEST_CASE("jitter specs", "[diskemu][config]") {
  CHECK(parse_jitter("none").kind == JitterSpec::Kind::None);
  auto e = parse_jitter("exp:0.05ms");
  CHECK(e.kind == JitterSpec::Kind::Exponential);
  CHECK(e.param_ms == Approx(0.05));
  auto u = parse_jitter("uniform:100us");
  CHECK(u.kind == JitterSpec::Kind::Uniform);
  CHECK(u.param_ms == Approx(0.1));
  CHECK(parse_jitter("exp:0ms").kind == JitterSpec::Kind::None);
  CHECK_THROWS_WITH(parse_jitter("normal:1ms"), Contains("none, exp:MEAN or uniform:MAX"));
  CHECK_THROWS_WITH(parse_jitter("exp"), Contains("exp:MEAN"));
  CHECK_THROWS_WITH(parse_jitter("exp:-1ms"), Contains("must not be negative"));
  CHECK_THROWS_WITH(parse_jitter("uniform:1"), Contains("unit"));
}

TEST_CASE("rpm-error specs", "[diskemu][config]") {
  CHECK(parse_rpm_error("0.001").error == Approx(0.001));
  CHECK(parse_rpm_error("-0.5%").error == Approx(-0.005));
  auto d = parse_rpm_error("0.1%,drift=0.01%");
  CHECK(d.error == Approx(0.001));
  CHECK(d.drift_per_s == Approx(0.0001));
  CHECK(parse_rpm_error("0,drift=1e-5/s").drift_per_s == Approx(1e-5));
  CHECK(parse_rpm_error("0").none());
  CHECK_THROWS_WITH(parse_rpm_error("fast"), Contains("'fast'") && Contains("fraction"));
  CHECK_THROWS_WITH(parse_rpm_error("0.1,speed=2"), Contains("drift=D"));
  CHECK_THROWS_WITH(parse_rpm_error("-100%"), Contains("above -1"));
}

TEST_CASE("every key is parsed as documented", "[diskemu][config]") {
  DiskemuConfig c;
  c.set("model", "hp97560");
  c.set("file", "/tmp/disk.img");
  c.set("timescale", "0.01");
  c.set("jitter", "exp:50us");
  c.set("jitter-seed", "99");
  c.set("rpm-error", "0.1%");
  c.set("stats", "/tmp/stats.json");
  c.set("spin", "100us");
  c.set("timer-slack", "default");
  c.set("rt-priority", "10");
  CHECK_NOTHROW(c.check());
  CHECK(c.model == "hp97560");
  CHECK(*c.file == "/tmp/disk.img");
  CHECK(c.timescale == 0.01);
  CHECK(c.jitter.param_ms == Approx(0.05));
  CHECK(c.jitter_seed == 99);
  CHECK(c.rpm_error.error == Approx(0.001));
  CHECK(*c.stats == "/tmp/stats.json");
  CHECK(c.spin_ms == Approx(0.1));
  CHECK(c.timer_slack_ms == 0.0);
  CHECK(c.rt_priority == 10);
}

TEST_CASE("bad keys and values name themselves", "[diskemu][config]") {
  DiskemuConfig c;
  CHECK_THROWS_WITH(c.check(), Contains("model= parameter is required"));
  CHECK_THROWS_WITH(c.set("timescale", "0"), Contains("timescale=0") && Contains("> 0"));
  CHECK_THROWS_WITH(c.set("timescale", "-1"), Contains("timescale=-1"));
  CHECK_THROWS_WITH(c.set("timescale", "fast"), Contains("timescale=fast") && Contains("not a number"));
  CHECK_THROWS_WITH(c.set("jitter", "gauss:1ms"), Contains("jitter=gauss:1ms"));
  CHECK_THROWS_WITH(c.set("jitter-seed", "-3"), Contains("jitter-seed=-3"));
  CHECK_THROWS_WITH(c.set("rpm-error", "x"), Contains("rpm-error=x"));
  CHECK_THROWS_WITH(c.set("spin", "5s"), Contains("spin=5s"));
  CHECK_THROWS_WITH(c.set("spin", "5"), Contains("spin=5") && Contains("unit"));
  CHECK_THROWS_WITH(c.set("model", ""), Contains("model="));
  CHECK_THROWS_WITH(c.set("rt-priority", "100"), Contains("rt-priority=100") && Contains("1 to 99"));
  CHECK_THROWS_WITH(c.set("sped", "1"), Contains("unknown parameter 'sped'") && Contains("timescale"));
  CHECK_THROWS_AS(c.set("sped", "1"), ConfigError);
}
