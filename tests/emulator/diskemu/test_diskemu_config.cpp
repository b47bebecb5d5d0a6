// diskemu's parameters: values parsed as documented, bad ones refused with a message
// that names the key and what was expected.
#include <catch2/catch.hpp>

#include "emulator/diskemu/config.hpp"

using namespace disksched;
using namespace disksched::diskemu;
using Catch::Contains;

namespace {
// nbdkit's parsers are not there without nbdkit; these follow its rules. (Durations:
// tests/common/test_units.cpp.)
const KeyParsers& keys = portable_key_parsers();
}  // namespace

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
  CHECK_THROWS_WITH(parse_jitter("exp:-1ms"), Contains("'-1ms' is negative"));
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
  for (auto [key, value] : std::vector<std::pair<const char*, const char*>>{
           {"model", "hp97560"}, {"file", "/tmp/disk.img"}, {"timescale", "0.01"},
           {"jitter", "exp:50us"}, {"jitter-seed", "99"}, {"rpm-error", "0.1%"},
           {"stats", "/tmp/stats.json"}, {"spin", "100us"}, {"timer-slack", "default"},
           {"rt-priority", "10"}})
    c.set(key, value, keys);
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
  CHECK_THROWS_WITH(c.set("timescale", "0", keys), Contains("timescale=0") && Contains("> 0"));
  CHECK_THROWS_WITH(c.set("timescale", "-1", keys), Contains("timescale=-1"));
  CHECK_THROWS_WITH(c.set("timescale", "fast", keys), Contains("timescale=fast") && Contains("not a number"));
  CHECK_THROWS_WITH(c.set("jitter", "gauss:1ms", keys), Contains("jitter=gauss:1ms"));
  CHECK_THROWS_WITH(c.set("jitter-seed", "-3", keys), Contains("jitter-seed=-3"));
  CHECK_THROWS_WITH(c.set("rpm-error", "x", keys), Contains("rpm-error=x"));
  CHECK_THROWS_WITH(c.set("spin", "5s", keys), Contains("spin=5s"));
  CHECK_THROWS_WITH(c.set("spin", "5", keys), Contains("spin=5") && Contains("unit"));
  CHECK_THROWS_WITH(c.set("model", "", keys), Contains("model="));
  CHECK_THROWS_WITH(c.set("rt-priority", "100", keys), Contains("rt-priority=100") && Contains("1 to 99"));
  CHECK_THROWS_WITH(c.set("sped", "1", keys), Contains("unknown parameter 'sped'") && Contains("timescale"));
  CHECK_THROWS_AS(c.set("sped", "1", keys), ConfigError);
}

TEST_CASE("the drive's own queue: keys, defaults and refusals", "[diskemu][config]") {
  DiskemuConfig c;
  CHECK(c.drive_queue.depth == 1);  // no queueing unless asked for
  CHECK(c.drive_queue.policy == "satf");
  CHECK(c.drive_queue.age_limit_ms == 1000.0);
  CHECK(c.drive_queue.window == 0);  // the policy sees every command held
  c.set("drive-queue", "32", keys);
  c.set("drive-window", "4", keys);
  c.set("drive-policy", "asatf:w=30", keys);
  c.set("drive-age-limit", "250ms", keys);
  CHECK(c.drive_queue.depth == 32);
  CHECK(c.drive_queue.window == 4);
  CHECK_THAT(c.drive_queue.policy, Catch::StartsWith("asatf:w=30"));
  CHECK(c.drive_queue.age_limit_ms == 250.0);
  c.set("drive-age-limit", "none", keys);
  CHECK_FALSE(c.drive_queue.has_age_limit());
  CHECK_THROWS_WITH(c.set("drive-queue", "0", keys), Contains("drive-queue=0") && Contains("1 (no queueing)"));
  CHECK_THROWS_WITH(c.set("drive-queue", "many", keys), Contains("drive-queue=many"));
  CHECK_THROWS_WITH(c.set("drive-window", "257", keys), Contains("drive-window=257") && Contains("0 (all) to 256"));
  CHECK_THROWS_WITH(c.set("drive-window", "-1", keys), Contains("drive-window=-1"));
  CHECK(c.drive_queue.window == 4);  // a refused value leaves the last one
  c.set("drive-window", "0", keys);
  CHECK(c.drive_queue.window == 0);
  CHECK_THROWS_WITH(c.set("drive-policy", "nosuch", keys),
                    Contains("drive-policy=nosuch") && Contains("unknown scheduler"));
  CHECK_THROWS_WITH(c.set("drive-policy", "asatf:w=-1", keys), Contains("drive-policy=asatf:w=-1"));
  CHECK_THROWS_WITH(c.set("drive-age-limit", "500", keys), Contains("drive-age-limit=500") && Contains("500ms"));
  CHECK_THROWS_WITH(c.set("drive-age-limit", "0ms", keys), Contains("drive-age-limit=0ms") && Contains("> 0"));
}

TEST_CASE("write cache keys", "[diskemu][config]") {
  DiskemuConfig c;
  c.set("model", "hp97560", keys);
  c.check();
  CHECK_FALSE(c.write_cache);  // not given: the device as before
  c.set("write-cache", "8M", keys);
  c.set("write-cache-high-water", "50%", keys);
  c.set("power-cut-after", "100", keys);
  CHECK(c.write_cache == 8u << 20);
  CHECK(c.write_cache_high_water == Approx(0.5));
  CHECK(c.power_cut_after == 100u);
  c.check();
  CHECK_THROWS_WITH(c.set("write-cache", "lots", keys), Contains("write-cache=lots: expected a size"));
  CHECK_THROWS_WITH(c.set("write-cache-high-water", "2", keys),
                    Contains("write-cache-high-water=2:") && Contains("fraction"));
  CHECK_THROWS_WITH(c.set("power-cut-after", "0", keys), Contains("expected a number of writes >= 1"));
  DiskemuConfig through;
  through.set("model", "hp97560", keys);
  through.set("write-cache", "0", keys);
  through.check();
  through.set("power-cut-after", "3", keys);
  CHECK_THROWS_WITH(through.check(), Contains("power-cut-after= needs a write cache"));
}

TEST_CASE("power-cut-seed: a number, and only where there is a write buffer", "[diskemu][config]") {
  DiskemuConfig c;
  c.set("model", "sata7200-8tb", keys);
  c.set("power-cut-seed", "42", keys);
  CHECK(c.power_cut_seed == 42u);
  c.check();  // no write-cache=: the profile's write-behind may be the buffer
  c.write_buffer_check(true);
  CHECK_THROWS_WITH(c.write_buffer_check(false),
                    Contains("power-cut-seed= needs a write cache") &&
                        Contains("a model whose profile cache takes writes behind"));
  CHECK_THROWS_WITH(c.set("power-cut-seed", "-1", keys), Contains("power-cut-seed=-1"));
  DiskemuConfig through;
  through.set("model", "sata7200-8tb", keys);
  through.set("write-cache", "0", keys);
  through.set("power-cut-seed", "1", keys);
  CHECK_THROWS_WITH(through.check(), Contains("power-cut-seed= needs a write cache"));
}
