// The qos admission controller's rules (schedulers/dispatch/qos_admission.hpp), exactly:
// when the depth shrinks and grows, how a failed probe backs off, who takes a free
// place (overdue background in turns, bg-share's credit, background only where no
// foreground request is and at most bg-depth of it). Times are given, no clock.
#include <catch2/catch.hpp>

#include "schedulers/dispatch/qos_admission.hpp"

using namespace disksched;
using Grant = QosAdmission::Grant;

namespace {

constexpr IoClass kFg = IoClass::TimeCritical;
constexpr IoClass kBg = IoClass::TimeNoncritical;

// A controller and a drive serving one foreground request at a time.
struct Drive {
  QosAdmission q;
  Millis t = 0;
  // One foreground request, sent now and done `response` later.
  void fg(Millis response) {
    q.admitted(kFg, t, t);
    q.completed(kFg, t, t, t + response);
    t += response;
  }
  void window(int n, Millis response) {
    for (int i = 0; i < n; ++i) fg(response);
  }
};

}  // namespace

TEST_CASE("qos: the depth is cut at the second miss of a p99 window and grows after a good one",
          "[qos]") {
  Drive d{QosAdmission({.target_ms = 50, .window = 100, .max_depth = 32})};
  REQUIRE(d.q.depth() == 32);
  d.fg(60);
  REQUIRE(d.q.depth() == 32);  // one miss in 100 is the 1 % a p99 allows
  d.fg(60);
  REQUIRE(d.q.depth() == 24);  // 3/4
  REQUIRE(d.q.stats().shrinks == 1);
  // A request sent before the cut says nothing of the new depth.
  d.q.admitted(kFg, 50, 50);
  d.q.completed(kFg, 50, 50, 400);
  d.fg(60);
  REQUIRE(d.q.depth() == 24);
  // A full window under 80 % of the target: one eighth more.
  d.window(99, 30);
  REQUIRE(d.q.depth() == 27);
  REQUIRE(d.q.stats().grows == 1);
  // A full window between 80 % and 100 % keeps it.
  d.window(100, 45);
  REQUIRE(d.q.depth() == 27);
  // At least one less each cut, never under min-depth.
  Drive low{QosAdmission({.target_ms = 50, .window = 10, .min_depth = 2, .max_depth = 3})};
  low.fg(99);  // a window of 10 allows no miss at p99
  REQUIRE(low.q.depth() == 2);
  low.fg(99);
  REQUIRE(low.q.depth() == 2);
}

TEST_CASE("qos: a window far over the target cuts by the smallest miss, not only to 3/4",
          "[qos]") {
  // Live, a drive that starves the reader holds it to its age limit (1 s, 20x 50 ms):
  // nine cuts of 3/4, each waiting for two starved responses, took the whole run.
  Drive d{QosAdmission({.target_ms = 50, .window = 100, .max_depth = 32})};
  d.fg(1000);
  d.fg(400);  // the smaller miss, 8x: 32 / 8
  REQUIRE(d.q.depth() == 4);
  REQUIRE(d.q.stats().shrinks == 1);
  d.fg(1000);
  d.fg(1000);  // 20x: 4 / 20 is under one, min-depth holds
  REQUIRE(d.q.depth() == 1);
  // Misses of a window that ended good are forgotten: 100 x 30 ms and one 60 ms miss
  // leave the next window's first miss of 2x to cut to half, not by the old 1.2x.
  Drive e{QosAdmission({.target_ms = 50, .window = 100, .max_depth = 32})};
  e.fg(60);
  e.window(99, 45);  // a full window, its p99 between 80 % and 100 %: kept
  REQUIRE(e.q.depth() == 32);
  e.fg(100);
  e.fg(100);
  REQUIRE(e.q.depth() == 16);
}

TEST_CASE("qos: a time-limited request is judged by its own limit unless limited-target is given",
          "[qos]") {
  constexpr IoClass kLimited = IoClass::TimeLimited;
  // A window of 10 allows no miss at p99: one miss cuts.
  QosAdmission own({.target_ms = 50, .window = 10, .max_depth = 8});
  own.admitted(kLimited, 0, 0);
  own.completed(kLimited, 0, 0, 150, 200);  // 150 ms, its limit 200 ms: no miss
  REQUIRE(own.depth() == 8);
  REQUIRE(own.stats().cls[static_cast<std::size_t>(kLimited)].over_target == 0);
  own.admitted(kLimited, 150, 150);
  own.completed(kLimited, 150, 150, 450, 200);  // 300 ms against 200: 1.5x
  REQUIRE(own.depth() == 5);  // 8 / 1.5
  own.admitted(kLimited, 450, 450);
  own.completed(kLimited, 450, 450, 510, 0);  // no limit of its own: the target, 50 ms
  REQUIRE(own.depth() == 3);  // 60 ms, 1.2x: 3/4 of 5 is the deeper cut
  // limited-target given: it judges, whatever the request's limit.
  QosAdmission fixed({.target_ms = 50, .limited_target_ms = 100, .window = 10, .max_depth = 8});
  fixed.admitted(kLimited, 0, 0);
  fixed.completed(kLimited, 0, 0, 150, 200);
  REQUIRE(fixed.depth() == 5);  // 150 ms against 100: 8 / 1.5
  REQUIRE(fixed.stats().cls[static_cast<std::size_t>(kLimited)].over_target == 1);
}

TEST_CASE("qos: a depth whose probe was cut is probed after twice as many good windows",
          "[qos]") {
  Drive d{QosAdmission({.target_ms = 50, .window = 10, .max_depth = 2})};
  d.fg(99);
  REQUIRE(d.q.depth() == 1);
  d.window(10, 10);
  REQUIRE(d.q.depth() == 2);  // the probe
  d.fg(99);
  REQUIRE(d.q.depth() == 1);  // cut: the next probe after 2 good windows
  d.window(10, 10);
  REQUIRE(d.q.depth() == 1);
  d.window(10, 10);
  REQUIRE(d.q.depth() == 2);
  d.fg(99);
  d.window(30, 10);
  REQUIRE(d.q.depth() == 1);  // now after 4
  d.window(10, 10);
  REQUIRE(d.q.depth() == 2);
  d.window(10, 10);  // the probe held a whole window
  REQUIRE(d.q.depth() == 2);
  REQUIRE(d.q.stats().grows == 3);
  REQUIRE(d.q.stats().shrinks == 3);
}

TEST_CASE("qos: who takes a free place", "[qos]") {
  QosAdmission q({.target_ms = 50, .max_depth = 2, .bg_wait_ms = 100});
  // Foreground first; background in the room it leaves; nothing beyond the depth.
  REQUIRE(q.next(0, true, true, 0) == Grant::Foreground);
  REQUIRE(q.next(0, false, true, 0) == Grant::Background);
  REQUIRE(q.next(0, false, false, 0) == Grant::None);
  q.admitted(kFg, 0, 0);
  q.admitted(kBg, 0, 0);
  REQUIRE(q.next(500, true, true, 0) == Grant::None);
  q.completed(kBg, 0, 0, 10);
  // Overdue background goes first, then takes turns with the foreground.
  REQUIRE(q.next(150, true, true, 20) == Grant::Background);
  q.admitted(kBg, 20, 150);
  REQUIRE(q.stats().cls[2].overdue == 1);
  REQUIRE(q.stats().cls[2].max_wait_ms == 130);
  q.completed(kBg, 20, 150, 160);
  q.completed(kFg, 0, 0, 160);
  REQUIRE(q.next(160, true, true, 30) == Grant::Foreground);
  q.admitted(kFg, 160, 160);
  REQUIRE(q.next(160, true, true, 30) == Grant::Background);
  // bg-wait=0: no bound, strict priority.
  QosAdmission strict({.target_ms = 50, .max_depth = 2, .bg_wait_ms = 0});
  REQUIRE(strict.next(1e9, true, true, 0) == Grant::Foreground);
}

TEST_CASE("qos: background goes only where no foreground request is, at most bg-depth of it",
          "[qos]") {
  QosAdmission q({.target_ms = 50, .max_depth = 8, .bg_wait_ms = 100, .bg_depth = 2});
  // Room at the drive, no foreground anywhere: background, up to bg-depth.
  REQUIRE(q.next(0, false, true, 0) == Grant::Background);
  q.admitted(kBg, 0, 0);
  REQUIRE(q.next(0, false, true, 0) == Grant::Background);
  q.admitted(kBg, 0, 0);
  REQUIRE(q.next(1, false, true, 0) == Grant::None);  // two at the drive
  q.completed(kBg, 0, 0, 5);
  q.completed(kBg, 0, 0, 5);
  // A foreground request at the drive: the drive would serve a background one sent
  // beside it first, so none goes, though 7 places are free.
  q.admitted(kFg, 5, 5);
  REQUIRE(q.next(6, false, true, 5) == Grant::None);
  // ... until it completes.
  q.completed(kFg, 5, 5, 20);
  REQUIRE(q.next(20, false, true, 5) == Grant::Background);
  // An overdue request goes beyond bg-depth, taking its turn beside the foreground.
  q.admitted(kBg, 5, 20);
  q.admitted(kBg, 5, 20);
  q.admitted(kFg, 20, 20);
  REQUIRE(q.next(200, true, true, 50) == Grant::Background);
  // bg-depth=0: background up to the depth.
  QosAdmission open({.target_ms = 50, .max_depth = 3, .bg_wait_ms = 0, .bg_depth = 0});
  for (int i = 0; i < 3; ++i) {
    REQUIRE(open.next(0, false, true, 0) == Grant::Background);
    open.admitted(kBg, 0, 0);
  }
  REQUIRE(open.next(0, false, true, 0) == Grant::None);
}

TEST_CASE("qos: bg-share gives the background its share of the dispatches", "[qos]") {
  auto background_of_400 = [](double share) {
    QosAdmission q({.target_ms = 50, .max_depth = 1, .bg_share = share, .bg_wait_ms = 0});
    int bg = 0;
    for (int i = 0; i < 400; ++i) {
      const IoClass c = q.next(i, true, true, 0) == Grant::Background ? kBg : kFg;
      bg += c == kBg;
      q.admitted(c, i, i);
      q.completed(c, i, i, i + 1.0);
    }
    return bg;
  };
  REQUIRE(background_of_400(0.0) == 0);
  REQUIRE(background_of_400(0.5) == 200);  // turns, one each
  CHECK(background_of_400(0.2) == Approx(80).margin(1));
}

TEST_CASE("qos: control=off is foreground first at max-depth, without a bound", "[qos]") {
  Drive d{QosAdmission({.target_ms = 50, .max_depth = 2, .bg_wait_ms = 100, .control = false})};
  REQUIRE(d.q.next(1e6, true, true, 0) == Grant::Foreground);
  d.window(10, 500);
  REQUIRE(d.q.depth() == 2);
  REQUIRE(d.q.stats().shrinks == 0);
}

TEST_CASE("qos: an inconsistent configuration is refused", "[qos]") {
  REQUIRE_THROWS_AS(QosAdmission({.min_depth = 4, .max_depth = 2}), std::invalid_argument);
  REQUIRE_THROWS_AS(QosAdmission({.window = 0}), std::invalid_argument);
  REQUIRE_THROWS_AS(QosAdmission({.quantile = 1.0}), std::invalid_argument);
}
