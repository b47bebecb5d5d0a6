// The filter's status and control commands over the head tracker's refinement.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/experiments/workload/workload.hpp"
#include "predictor/lbn_model.hpp"
#include "daemon/filter/control_commands.hpp"
#include "daemon/filter/dispatcher.hpp"
#include "predictor/device_model.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/head_tracker.hpp"
#include "schedulers/registry.hpp"
#include "tests/predictor/true_device.hpp"

using namespace disksched;
using namespace disksched::testing;

TEST_CASE("the filter's status shows the refined period in real milliseconds and ppm",
          "[filter][head_tracker][period]") {
  // The Dispatcher driven by one thread on a virtual clock at timescale 2 (real time is
  // twice model time), serving a platter 0.2 % slow.
  const double timescale = 2.0, factor = 1.002;
  const Millis in = 0.2, out = 0.1;
  TrueDevice dev("hp97560", 0.4, in, out);
  const Millis nominal = dev.model->rotation_ms();
  dev.spin = Spin::anchored(0.0, 0.4, nominal * factor);
  auto model = load_model("hp97560");
  auto sched = make_scheduler("fcfs", *model);
  std::int64_t clock_ns = 0;
  Dispatcher::Options o;
  o.core.fixed_delta = in + out;
  o.timescale = timescale;
  Dispatcher d(std::move(model), std::move(sched), o, [&] { return clock_ns; });
  SchedulerSpec configured = Registry::builtin().check("fcfs", LbnModel(1ull << 30));
  ControlTarget target{&d, &configured, "", ""}, unopened{nullptr, &configured, "", ""};
  auto ctl = [&](const std::string& line) {
    return nlohmann::json::parse(handle_control_command(line, target));
  };
  Rng rng(8);
  Millis now = 1.0;  // model ms
  auto serve = [&](int n) {
    for (int i = 0; i < n; ++i) {
      clock_ns = static_cast<std::int64_t>(now * timescale * 1e6);
      const Req q = random_request(rng, *dev.model);
      auto rec = LiveRecord::arriving(q.op, q.offset, q.length, 0, {});
      d.enter(rec);
      const Millis done = dev.serve(now, q.op, q.offset, q.length);
      clock_ns = static_cast<std::int64_t>(done * timescale * 1e6);
      d.leave(rec, true);
      now = done + 40.0 * rng.uniform();
    }
  };
  auto before = ctl("show");
  REQUIRE(before["rotation_refine"] == true);
  REQUIRE(before["rotation_ppm"].get<double>() == 0.0);
  serve(400);
  auto show = ctl("show");
  INFO(show.dump());
  REQUIRE(show["ok"] == true);
  REQUIRE(show["rotation_refined"] == true);
  REQUIRE(show["rotation_profile_ms"].get<double>() == Approx(nominal * timescale));
  // The clock's whole nanoseconds are the only noise.
  REQUIRE(show["rotation_ms"].get<double>() == Approx(nominal * factor * timescale).epsilon(2e-5));
  REQUIRE(show["rotation_ppm"].get<double>() == Approx(2000.0).margin(20.0));
  REQUIRE(show["rotation_fit_ppm"].get<double>() == Approx(2000.0).margin(20.0));
  // The platter is off, no track: none was turned.
  REQUIRE(show["track_refine"] == true);
  REQUIRE(show["tracks_rephased"] == 0);
  // Counted from the start, before the period was adopted (the first second or so).
  REQUIRE(ctl("stats")["prediction_within_sector"].get<double>() > 0.9);

  // Back to the profile's period: taken from the next completion on.
  auto fixed = ctl("period fixed");
  REQUIRE(fixed["ok"] == true);
  REQUIRE(fixed["rotation_refine"] == false);
  serve(1);
  show = ctl("show");
  REQUIRE(show["rotation_ms"].get<double>() == Approx(nominal * timescale).epsilon(1e-12));
  REQUIRE(show["rotation_fit_ppm"].get<double>() == Approx(2000.0).margin(20.0));
  auto bad = ctl("period sometimes");
  REQUIRE(bad["ok"] == false);
  REQUIRE_THAT(bad["error"].get<std::string>(), Catch::Contains("'refine'"));
  REQUIRE(nlohmann::json::parse(handle_control_command("period fixed", unopened))["ok"] == false);
}

