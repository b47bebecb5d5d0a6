// The open replay of traces measured on running systems (srt, msr, blkparse), in virtual
// time on fixed-time models, against the values worked by hand in
// tests/data/measured/README.md.
#include <cmath>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "bench/experiments/trace/trace_reader.hpp"
#include "bench/validate/validate_replay.hpp"
#include "predictor/device_model.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

const std::string kData = MEASURED_DATA_DIR;

// The class named `name` of `cs` (fails the test if there is none).
const ValidateClass& find(const std::vector<ValidateClass>& cs, const std::string& name) {
  for (const auto& c : cs)
    if (c.name == name) return c;
  FAIL("no class " << name);
  return cs.front();
}

}  // namespace

TEST_CASE("msr: ResponseTime is measured, requests queue behind each other FCFS",
          "[validate][open]") {
  const auto t = read_trace("msr", kData + "/msr-fixed4.csv");
  REQUIRE(t.measured_records() == 4);
  CHECK(*t.records[1].done_ms == 7.0);  // 70000 ticks of 100 ns
  CHECK(*t.records[1].issued_ms == 0.0);
  const auto model = load_model("fixed:ms=4");
  const auto r = replay_open(*model, t);
  REQUIRE(r.samples.size() == 4);
  CHECK(r.unmeasured == 0);
  CHECK(r.depth_max == 3);
  CHECK(r.depth == 3);
  CHECK(r.depth_mean == 1.75);
  const double measured[] = {4, 7, 10, 5}, simulated[] = {4, 7, 10, 4}, wait[] = {0, 3, 6, 0};
  const std::size_t flight[] = {1, 2, 3, 1};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(r.samples[i].index == i + 1);
    CHECK(r.samples[i].measured_ms == Approx(measured[i]).epsilon(1e-12));
    CHECK(r.samples[i].simulated_ms == Approx(simulated[i]).epsilon(1e-12));
    CHECK(r.samples[i].simulated_wait_ms == Approx(wait[i]).margin(1e-12));
    CHECK(r.samples[i].in_flight == flight[i]);
  }
  const auto all = compare("all", r.samples);
  CHECK(all.mean_measured_ms == Approx(6.5));
  CHECK(all.mean_simulated_ms == Approx(6.25));
  CHECK(all.demerit_ms == Approx(std::sqrt(2.0 / 9.0)).epsilon(1e-9));
  const auto cs = compare_by_op_and_origin(r.samples);
  REQUIRE(cs.size() == 2);  // MSR says nothing of who waits
  CHECK(find(cs, "read").demerit_ms == Approx(0.0).margin(1e-9));
  CHECK(find(cs, "write").demerit_ms == Approx(std::sqrt(1.0 / 3.0)).epsilon(1e-9));
}

TEST_CASE("srt: stop - start is measured, each request issued at enqueue + start",
          "[validate][open]") {
  const auto t = read_trace("srt", kData + "/srt-fixed3.srt");
  REQUIRE(t.records.size() == 4);
  CHECK(t.skipped == 1);  // the TEXTIO record
  CHECK(t.measured_records() == 4);
  CHECK(*t.records[1].issued_ms == 2.5);
  CHECK(*t.records[1].done_ms == 6.0);
  const auto model = load_model("fixed:ms=3");
  const auto r = replay_open(*model, t);
  REQUIRE(r.samples.size() == 4);
  CHECK(r.depth_max == 1);
  CHECK(r.depth_mean == 1.0);
  const double issue[] = {0, 3.5, 7, 20}, measured[] = {3, 3.5, 4.5, 2};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(r.samples[i].issue_ms == Approx(issue[i]).margin(1e-12));
    CHECK(r.samples[i].measured_ms == Approx(measured[i]).epsilon(1e-12));
    CHECK(r.samples[i].simulated_ms == Approx(3.0).epsilon(1e-12));
  }
  CHECK(r.samples[2].origin == Origin::Readahead);
  const auto all = compare("all", r.samples);
  CHECK(all.mean_measured_ms == Approx(3.25));
  CHECK(all.demerit_ms == Approx(std::sqrt(0.5)).epsilon(1e-9));
  const auto cs = compare_by_op_and_origin(r.samples);
  REQUIRE(cs.size() == 6);
  CHECK(cs[0].name == "read");
  CHECK(cs[1].name == "write");
  CHECK(find(cs, "read").demerit_ms == Approx(std::sqrt(0.75)).epsilon(1e-9));
  CHECK(find(cs, "write").demerit_ms == Approx(0.5).epsilon(1e-9));
  CHECK(find(cs, "read sync").demerit_ms == Approx(0.0).margin(1e-9));
  CHECK(find(cs, "read readahead").demerit_ms == Approx(1.5).epsilon(1e-9));
  CHECK(find(cs, "write async").demerit_ms == Approx(0.5).epsilon(1e-9));
  CHECK(find(cs, "write sync").demerit_ms == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("blkparse: C - D is measured; a D without its C is replayed, not compared",
          "[validate][open]") {
  const auto t = read_trace("blkparse", kData + "/blkparse-fixed2.txt");
  REQUIRE(t.records.size() == 5);
  CHECK(t.measured_records() == 4);
  CHECK_FALSE(t.records[4].has_measured_times());
  const auto model = load_model("fixed:ms=2");
  const auto r = replay_open(*model, t);
  REQUIRE(r.samples.size() == 4);
  CHECK(r.unmeasured == 1);
  CHECK(r.depth_max == 2);
  CHECK(r.depth_mean == 1.5);
  const double measured[] = {2, 4, 3, 5}, simulated[] = {2, 3.5, 2, 3};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(r.samples[i].measured_ms == Approx(measured[i]).epsilon(1e-9));
    CHECK(r.samples[i].simulated_ms == Approx(simulated[i]).epsilon(1e-9));
  }
  const auto all = compare("all", r.samples);
  CHECK(all.mean_measured_ms == Approx(3.5));
  CHECK(all.mean_simulated_ms == Approx(2.625));
  CHECK(all.demerit_ms == Approx(std::sqrt(8.75 / 9.0)).epsilon(1e-9));
  const auto cs = compare_by_op_and_origin(r.samples);
  CHECK(find(cs, "read").demerit_ms == Approx(std::sqrt(1.0 / 3.0)).epsilon(1e-9));
  CHECK(find(cs, "write").demerit_ms == Approx(std::sqrt(4.75 / 3.0)).epsilon(1e-9));
  CHECK(find(cs, "read readahead").requests == 1);
  CHECK(find(cs, "write async").requests == 1);
  CHECK(find(cs, "write sync").requests == 1);
}

TEST_CASE("blkparse: a C with an error, or with no D, gives no measured time", "[validate][open]") {
  std::istringstream in("  8,0 0 1 0.0 1 D R 100 + 8 [a]\n"
                        "  8,0 0 2 0.0 1 D R 200 + 8 [a]\n"
                        "  8,0 0 3 0.002 0 C R 100 + 8 [-5]\n"
                        "  8,0 0 4 0.003 0 C R 200 + 16 [0]\n"   // another extent
                        "  8,0 0 5 0.004 0 C R 200 + 8 [0]\n");
  const auto t = read_trace("blkparse", in, "e.blk");
  REQUIRE(t.records.size() == 2);
  CHECK_FALSE(t.records[0].has_measured_times());
  CHECK(*t.records[1].done_ms == Approx(4.0));
  REQUIRE(t.notes.size() == 2);
  CHECK_THAT(t.notes[1], Contains("1 of the 2 D events paired") && Contains("1 failed") &&
                             Contains("1 C events had no D"));
}

TEST_CASE("a deeper firmware queue reorders only with a policy that reorders",
          "[validate][open]") {
  const auto t = read_trace("msr", kData + "/msr-fixed4.csv");
  const auto model = load_model("fixed:ms=4");
  // FCFS at any depth is the device in arrival order.
  const auto deep = replay_open(*model, t, OpenReplayOptions{.depth = 32});
  CHECK(deep.depth == 32);
  CHECK(deep.samples[2].simulated_ms == Approx(10.0));
}

TEST_CASE("a trace without measured times is refused", "[validate][open]") {
  std::istringstream in("0,R,0,4096\n1,W,8192,4096\n");
  const auto t = read_trace("csv", in, "plain.csv");
  const auto model = load_model("fixed:ms=1");
  CHECK_THROWS_WITH(replay_open(*model, t), Contains("plain.csv: no request carries measured times"));
}
