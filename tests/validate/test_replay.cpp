// The closed depth-1 replay in virtual time, and the comparison by class.
#include <cmath>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "bench/experiments/trace/trace_reader.hpp"
#include "bench/validate/validate_replay.hpp"
#include "predictor/device_model.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/seek_forms.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

TraceData trace_of(const std::string& text) {
  std::istringstream in(text);
  return read_trace("validate", in, "t.trace");
}

}  // namespace

TEST_CASE("each request is issued its think time after the previous one completed",
          "[validate][replay]") {
  const auto model = load_model("fixed:ms=2.5");
  const auto t = trace_of(
      "R Miss 100 8 12000 3000\n"     // issued at 0, done at 2.5, next at 5.5
      "W Doub 200 16 9000 0\n"        // 5.5 .. 8, next at 8
      "R Hit 300 8 1000 500.25\n"     // 8 .. 10.5, next at 11.00025
      "R Miss 40 2 2500 0\n");        // 11.00025
  const auto s = replay_validate(*model, t);
  REQUIRE(s.size() == 4);
  CHECK(s[0].issue_ms == 0.0);
  CHECK(s[1].issue_ms == 5.5);
  CHECK(s[2].issue_ms == 8.0);
  CHECK(s[3].issue_ms == Approx(11.00025).epsilon(1e-15));
  for (const auto& x : s) {
    CHECK(x.simulated_ms == 2.5);
    CHECK(x.cost.transfer_ms == 2.5);  // the fixed model charges it all as transfer
  }
  CHECK(s[0].measured_ms == 12.0);
  CHECK(s[1].op == Op::Write);
  CHECK(s[1].buffer == BufferFlag::Doub);
  CHECK(s[1].lba == 200);
  CHECK(s[1].blocks == 16);
  CHECK(s[3].index == 4);
}

TEST_CASE("a request beyond the device is named", "[validate][replay]") {
  const auto model = load_model("fixed:ms=1,capacity=1048576");
  const auto t = trace_of("R Hit 0 8 1000 0\nR Hit 4000 8 1000 0\n");
  CHECK_THROWS_WITH(replay_validate(*model, t), Contains("t.trace: request 2 (block 4000"));
}

TEST_CASE("classes as the flags allow", "[validate][replay]") {
  const auto model = load_model("fixed:ms=2");
  SECTION("Hit and Miss on reads: read hit, read miss, write") {
    const auto s = replay_validate(*model, trace_of("R Hit 1 1 1000 0\n"
                                                    "R Miss 2 1 4000 0\n"
                                                    "R Miss 3 1 6000 0\n"
                                                    "W Trip 4 1 2000 0\n"));
    const auto c = compare_by_class(s);
    REQUIRE(c.size() == 3);
    CHECK(c[0].name == "read hit");
    CHECK(c[0].requests == 1);
    CHECK(c[0].demerit_ms == Approx(1.0));
    CHECK(c[1].name == "read miss");
    CHECK(c[1].mean_measured_ms == Approx(5.0));
    CHECK(c[1].mean_simulated_ms == Approx(2.0));
    // Measured 4 and 6, simulated 2 and 2: the difference is 2 + 2p, whose square
    // integrates to 28/3.
    CHECK(c[1].demerit_ms == Approx(std::sqrt(28.0 / 3.0)).epsilon(1e-12));
    CHECK(c[2].name == "write");
    CHECK(c[2].demerit_ms == 0.0);
    const auto all = compare("all", s);
    CHECK(all.requests == 4);
    CHECK(all.mean_measured_ms == Approx(3.25));
  }
  SECTION("Hit on every read says nothing: read, write") {
    const auto c = compare_by_class(replay_validate(*model, trace_of("R Hit 1 1 1000 0\n"
                                                                     "R Hit 2 1 4000 0\n"
                                                                     "W Hit 4 1 2000 0\n")));
    REQUIRE(c.size() == 2);
    CHECK(c[0].name == "read");
    CHECK(c[0].requests == 2);
    CHECK(c[1].name == "write");
  }
}

TEST_CASE("the worst requests come first", "[validate][replay]") {
  const auto model = load_model("fixed:ms=2");
  const auto s = replay_validate(*model, trace_of("R Hit 1 1 1000 0\n"     // 1 off
                                                  "R Miss 2 1 9000 0\n"    // 7 off
                                                  "W Trip 4 1 3000 0\n"    // 1 off
                                                  "W Trip 5 1 2000 0\n"));  // exact
  const auto w = worst_requests(s, 3);
  REQUIRE(w.size() == 3);
  CHECK(w[0].index == 2);
  CHECK(w[1].index == 1);
  CHECK(w[2].index == 3);
  CHECK(worst_requests(s, 10).size() == 4);
}

TEST_CASE("hits of the simulated drive's buffer are counted per class", "[validate][replay]") {
  // A small disk with a two-segment buffer: a read, then the same blocks again, hits.
  DiskProfile p;
  p.name = "buffered";
  p.heads = 2;
  p.rotation_ms = 10.0;
  p.zones = {ZoneSpec{0, 9, 100, {}, {}}};
  p.seek = two_piece_seek(1.0, 0.0, 5, 1.0, 0.0);
  p.drive.has_cache = true;
  p.drive.cache.segments = 2;
  p.drive.cache.segment_sectors = 200;
  const DiskModel model(p);
  const auto s = replay_validate(model, trace_of("R Miss 0 10 1000 0\n"
                                                 "R Hit 0 10 1000 0\n"
                                                 "W Doub 500 10 1000 0\n"));
  CHECK_FALSE(s[0].simulated_hit);
  CHECK(s[1].simulated_hit);
  const auto c = compare_by_class(s);
  REQUIRE(c.size() == 3);
  CHECK(c[0].simulated_hits == 1);  // read hit
  CHECK(c[1].simulated_hits == 0);  // read miss
  CHECK(compare("all", s).simulated_hits == 1);
}
