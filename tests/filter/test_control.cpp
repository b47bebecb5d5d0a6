// The control socket: show, stats and switch through a real Unix socket.
#include <catch2/catch.hpp>

#include <chrono>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "daemon/filter/control.hpp"
#include "daemon/filter/control_commands.hpp"
#include "daemon/filter/dispatcher.hpp"
#include "daemon/filter/lbn_model.hpp"
#include "schedulers/registry.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("control socket: show, switch, stats", "[filter][control]") {
  auto model = std::make_unique<LbnModel>(1ull << 30);
  auto s = make_scheduler("fcfs", *model);
  Dispatcher d(std::move(model), std::move(s), {}, steady_ns);
  std::string configured = "fcfs";
  const std::string path = "/tmp/disksched-ctl-" + std::to_string(getpid()) + ".sock";
  ControlServer server(path, [&](const std::string& line) {
    return handle_control_command(line, &d, configured, "fua=critical");
  });
  server.start();

  auto show = nlohmann::json::parse(control_request(path, "show"));
  REQUIRE(show["ok"] == true);
  REQUIRE(show["scheduler"] == "fcfs");
  REQUIRE(show["depth"] == 1);

  auto t = d.enter(Op::Read, 0, 4096, 0, {});
  d.leave(t, true);

  auto sw = nlohmann::json::parse(control_request(path, "switch sstf"));
  REQUIRE(sw["ok"] == true);
  REQUIRE(sw["previous"] == "fcfs");
  REQUIRE_THAT(sw["scheduler"].get<std::string>(), Contains("sstf"));
  REQUIRE_THAT(d.snapshot().scheduler, Contains("sstf"));

  auto bad = nlohmann::json::parse(control_request(path, "switch asatf"));
  REQUIRE(bad["ok"] == false);
  REQUIRE_THAT(bad["error"].get<std::string>(), Contains("rotational"));
  REQUIRE_THAT(d.snapshot().scheduler, Contains("sstf"));

  auto stats = nlohmann::json::parse(control_request(path, "stats"));
  REQUIRE(stats["requests"] == 1);
  REQUIRE(stats["switches"] == 1);
  REQUIRE(stats["mean_queue_len"] == 1.0);

  auto unknown = nlohmann::json::parse(control_request(path, "reboot"));
  REQUIRE(unknown["ok"] == false);

  // A second server on a live socket is refused; after stop the path is gone.
  REQUIRE_THROWS_WITH(ControlServer(path, [](const std::string&) { return std::string(); }),
                      Contains("in use"));
  server.stop();
  REQUIRE(access(path.c_str(), F_OK) != 0);
  REQUIRE_THROWS_WITH(control_request(path, "show"), Contains("cannot connect"));
}
