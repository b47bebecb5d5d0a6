// The filter's devices (daemon/filter/devices.hpp) without nbdkit: export names bounded
// by sched-max-exports=, a device per export size freed with its last connection, the
// first device kept, and a scheduler switch that applies to all.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/filter/devices.hpp"
#include "daemon/filter/filter_config.hpp"
#include "predictor/device_model.hpp"

using namespace disksched;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

struct Said {
  std::vector<std::string> warnings, errors, debug;
};

Devices::Options options(Said& said) {
  Devices::Options o;
  o.clock = [] { return std::int64_t{0}; };
  o.warn = [&said](const std::string& m) { said.warnings.push_back(m); };
  o.error = [&said](const std::string& m) { said.errors.push_back(m); };
  o.debug = [&said](const std::string& m) { said.debug.push_back(m); };
  return o;
}

FilterConfig lbn_config(unsigned max_exports) {
  FilterConfig c;
  c.sched = "fcfs";
  c.max_exports = max_exports;
  c.delta_ms = 0.0;  // no calibration thread to start
  return c;
}

// Devices without a geometry, and what they said.
struct LbnDevices {
  explicit LbnDevices(unsigned max_exports)
      : config(lbn_config(max_exports)), devices(config, config.check().scheduler, options(said)) {}
  const FilterConfig config;
  Said said;
  Devices devices;
};

std::string scheduler_of(const std::string& reply) {
  const auto at = reply.find("\"scheduler\":\"");
  REQUIRE(at != std::string::npos);
  const auto from = at + 13;
  return reply.substr(from, reply.find('"', from) - from);
}

}  // namespace

TEST_CASE("devices: export names beyond sched-max-exports are refused until one is freed",
          "[filter][devices]") {
  LbnDevices lbn(2);
  Devices& devices = lbn.devices;
  devices.admit("a", "a");
  devices.admit("b", "b");
  REQUIRE_THROWS_WITH(devices.admit("c", "c"),
                      Contains("export 'c' refused") && Contains("sched-max-exports=2"));
  devices.admit("a", "a");  // a name in use takes more connections

  Dispatcher* a = devices.prepare("a", "a", 4 * kMiB);
  Dispatcher* b = devices.prepare("b", "b", 4 * kMiB);
  REQUIRE(a != b);
  REQUIRE(devices.first() == a);
  // b's last connection frees its device and its name: c fits now.
  devices.release("b", b);
  devices.admit("c", "c");
  Dispatcher* c = devices.prepare("c", "c", 8 * kMiB);
  REQUIRE(c->capacity_bytes() >= 8 * kMiB);
  // The first device is kept with its name, even when nobody uses it.
  devices.release("a", a);
  devices.release("a", nullptr);  // closed before .prepare
  REQUIRE_THROWS_WITH(devices.admit("d", "d"), Contains("export 'd' refused"));
  REQUIRE(devices.first() == a);
  devices.release("c", c);
  devices.admit("d", "d");
}

TEST_CASE("devices: an export that grew gets a new device; the old one goes with its users",
          "[filter][devices]") {
  LbnDevices lbn(8);
  Devices& devices = lbn.devices;
  Said& said = lbn.said;
  devices.admit("first", "first");
  devices.prepare("first", "first", kMiB);
  devices.admit("x", "x");
  devices.admit("x", "x");
  Dispatcher* small = devices.prepare("x", "x", kMiB);
  Dispatcher* large = devices.prepare("x", "x", 2 * kMiB);
  REQUIRE(large != small);
  REQUIRE(large->capacity_bytes() >= 2 * kMiB);
  REQUIRE(said.debug.size() == 1);
  REQUIRE_THAT(said.debug[0], Contains("export 'x' has grown"));
  devices.release("x", small);  // frees the smaller one
  devices.admit("x", "x");
  REQUIRE(devices.prepare("x", "x", kMiB) == large);  // still large enough
}

TEST_CASE("devices: a switch applies to every device, and to those opened after",
          "[filter][devices]") {
  LbnDevices lbn(8);
  Devices& devices = lbn.devices;
  Said& said = lbn.said;
  // Before any device opened, the switch is what the first one starts with.
  REQUIRE_THAT(scheduler_of(devices.command("switch sstf", {}).finish()), StartsWith("sstf"));
  devices.admit("a", "a");
  devices.admit("b", "b");
  Dispatcher* a = devices.prepare("a", "a", kMiB);
  Dispatcher* b = devices.prepare("b", "b", kMiB);
  REQUIRE_THAT(a->scheduler(), StartsWith("sstf"));
  REQUIRE_THAT(b->scheduler(), StartsWith("sstf"));

  const std::string reply = devices.command("switch look", {}).finish();
  REQUIRE_THAT(reply, Contains("\"previous\":\"sstf"));
  REQUIRE_THAT(a->scheduler(), StartsWith("look"));
  REQUIRE_THAT(b->scheduler(), StartsWith("look"));
  devices.admit("c", "c");
  REQUIRE_THAT(devices.prepare("c", "c", kMiB)->scheduler(), StartsWith("look"));
  REQUIRE(said.errors.empty());
}

TEST_CASE("devices: the geometry's one device serves every export that fits it",
          "[filter][devices]") {
  FilterConfig config = lbn_config(1);
  config.geometry = "hp97560";
  Said said;
  Devices devices(config, config.check().scheduler, options(said));
  devices.open_geometry(load_model("hp97560"));
  const Dispatcher* d = devices.first();
  REQUIRE(d != nullptr);
  // No export bound with a geometry: the names are not counted.
  devices.admit("a", "a");
  devices.admit("b", "b");
  REQUIRE(devices.prepare("a", "a", d->capacity_bytes()) == d);
  REQUIRE_THROWS_WITH(devices.prepare("b", "b", d->capacity_bytes() + 512),
                      Contains("sched-geometry=hp97560") && Contains("export 'b'"));
  // A much smaller export is most likely the wrong profile: said once.
  devices.prepare("a", "a", kMiB);
  devices.prepare("b", "b", kMiB);
  REQUIRE(said.warnings.size() == 1);
  REQUIRE_THAT(said.warnings[0], Contains("does not fit the export"));
  REQUIRE(d->snapshot().warnings == said.warnings);
}
