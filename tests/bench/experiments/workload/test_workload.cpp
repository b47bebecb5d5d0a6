// Workload specs and generators.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "bench/experiments/trace/trace_reader.hpp"
#include "bench/experiments/workload/workload.hpp"
#include "tests/scratch_dir.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {
const DeviceExtent kDev{1ull << 30, 512};
}

TEST_CASE("specs parse to a canonical form with every parameter", "[sim][workload]") {
  CHECK(Workload::parse("uniform").spec() == "uniform:size=8192,reads=1,align=0");
  CHECK(Workload::parse("uniform:size=4k,reads=0.5").spec() == "uniform:size=4096,reads=0.5,align=0");
  CHECK(Workload::parse("seq").spec() == "seq:p=0.829,size=8192,reads=1,align=0");
  CHECK(Workload::parse("closed:n=16,think=5ms").spec() ==
        "closed:n=16,think=5ms,thinkdist=fixed,p=0,size=8192,reads=1,align=0");
  CHECK(Workload::parse("closed:n=2,think=0.5s,thinkdist=exp").number("think") == 500.0);
  CHECK(Workload::parse("closed:n=2").is_closed());
  CHECK_FALSE(Workload::parse("seq:p=0.005").is_closed());
}

TEST_CASE("bad specs name the key, the value and what was expected", "[sim][workload]") {
  CHECK_THROWS_WITH(Workload::parse("zipf"), Contains("unknown workload 'zipf'"));
  CHECK_THROWS_WITH(Workload::parse("uniform:sise=8k"),
                    Contains("unknown parameter 'sise'") && Contains("size"));
  CHECK_THROWS_WITH(Workload::parse("uniform:reads=1.5"),
                    Contains("reads=1.5") && Contains("out of range"));
  CHECK_THROWS_WITH(Workload::parse("uniform:size=8q"), Contains("size=8q"));
  CHECK_THROWS_WITH(Workload::parse("seq:p"), Contains("has no value"));
  CHECK_THROWS_WITH(Workload::parse("closed:think=5ms"), Contains("needs n=N"));
  CHECK_THROWS_WITH(Workload::parse("closed:n=4,thinkdist=gauss"), Contains("fixed|exp"));
  CHECK_THROWS_WITH(Workload::parse("trace:foo:/x"), Contains("unknown format 'foo'"));
  CHECK_THROWS_WITH(Workload::parse("uniform").open_stream(kDev, 0, 1), Contains("rate"));
  CHECK_THROWS_WITH(Workload::parse("closed:n=1").open_stream(kDev, 10, 1), Contains("closed-loop"));
}

TEST_CASE("uniform: Poisson arrivals at the rate, aligned, inside the device", "[sim][workload]") {
  auto s = Workload::parse("uniform:size=8k,reads=0.7").open_stream(kDev, 50.0, 9);
  double last = 0, reads = 0, sum_gap = 0, sum_gap2 = 0;
  const int n = 40000;
  std::uint64_t lo = ~0ull, hi = 0;
  for (int i = 0; i < n; ++i) {
    auto a = *s->next();
    REQUIRE(a.time_ms >= last);
    const double gap = a.time_ms - last;
    sum_gap += gap;
    sum_gap2 += gap * gap;
    last = a.time_ms;
    REQUIRE(a.offset % 512 == 0);
    REQUIRE(a.offset + a.length <= kDev.capacity_bytes);
    REQUIRE(a.length == 8192);
    lo = std::min(lo, a.offset);
    hi = std::max(hi, a.offset);
    reads += a.op == Op::Read;
  }
  const double mean = sum_gap / n;
  CHECK(mean == Approx(20.0).epsilon(0.02));
  // Exponential gaps: the squared CV is 1.
  CHECK((sum_gap2 / n - mean * mean) / (mean * mean) == Approx(1.0).epsilon(0.05));
  CHECK(reads / n == Approx(0.7).epsilon(0.02));
  CHECK(lo < kDev.capacity_bytes / 100);
  CHECK(hi > kDev.capacity_bytes / 100 * 99);
}

TEST_CASE("seq: the fraction of requests that continue the previous one is p", "[sim][workload]") {
  for (double p : {0.005, 0.829}) {
    auto s = Workload::parse(fmt::format("seq:p={}", p)).open_stream(kDev, 20.9, 5);
    std::uint64_t prev_end = 0;
    int sequential = 0;
    const int n = 50000;
    for (int i = 0; i < n; ++i) {
      auto a = *s->next();
      if (i > 0 && a.offset == prev_end) ++sequential;
      prev_end = a.offset + a.length;
    }
    CHECK(static_cast<double>(sequential) / (n - 1) == Approx(p).margin(0.006));
  }
}

TEST_CASE("burst: requests come in bursts that stay inside a window", "[sim][workload]") {
  auto w = Workload::parse("burst:len=8,span=1m,p=0.5,size=4k");
  auto s = w.open_stream(kDev, 100.0, 3);
  for (int b = 0; b < 200; ++b) {
    auto first = *s->next();
    std::uint64_t lo = first.offset, hi = first.offset + first.length;
    for (int i = 1; i < 8; ++i) {
      auto a = *s->next();
      CHECK(a.time_ms == first.time_ms);  // gap=0: the whole burst at once
      lo = std::min(lo, a.offset);
      hi = std::max(hi, a.offset + a.length);
    }
    CHECK(hi - lo <= (1u << 20));
  }
}

TEST_CASE("streams are reproducible from the seed", "[sim][workload]") {
  auto w = Workload::parse("seq:p=0.3,reads=0.5");
  auto a = w.open_stream(kDev, 10, 77), b = w.open_stream(kDev, 10, 77), c = w.open_stream(kDev, 10, 78);
  bool same = true, differ = false;
  for (int i = 0; i < 1000; ++i) {
    auto x = *a->next(), y = *b->next(), z = *c->next();
    same = same && x.time_ms == y.time_ms && x.offset == y.offset && x.op == y.op;
    differ = differ || x.offset != z.offset;
  }
  CHECK(same);
  CHECK(differ);
}

TEST_CASE("trace workloads: options, scaling to a rate, folding", "[sim][workload]") {
  const testing::ScratchDir dir;
  // A comma in the name: options come off the end.
  const auto path = dir.write(
      "t,1.csv", "time_ms,op,offset,length\n0,R,0,4096\n10,W,2147483648,4096\n20,R,8192,4096\n30,R,12288,4096\n");
  auto w = Workload::parse("trace:csv:" + path + ",scale=2,fold=1");
  CHECK(w.trace_path() == path);
  CHECK(w.number("scale") == 2);
  CHECK(w.trace_rate_per_s() == Approx(200.0));  // 100/s, twice as fast
  auto s = w.open_stream(kDev, 0, 1);
  CHECK(s->next()->time_ms == 0);
  auto second = *s->next();
  CHECK(second.time_ms == Approx(5.0));
  CHECK(second.offset == 0);  // 2 GiB folded onto a 1 GiB device
  CHECK(second.op == Op::Write);
  // With a rate, the trace is rescaled to it.
  auto r = w.open_stream(kDev, 50.0, 1);
  r->next();
  CHECK(r->next()->time_ms == Approx(20.0));
  // Folding is announced with its count and share.
  const auto notes = w.trace_notes(kDev);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("folded 1 of 4 requests (25.0%)") && Contains("larger profile"));
  CHECK_THROWS_WITH(Workload::parse("trace:csv:" + path + ",speed=2"),
                    Contains("unknown option 'speed'"));
}

// Issue 15: 77% of one real trace's requests were folded without a word.
TEST_CASE("trace workloads: folding must be asked for", "[sim][workload]") {
  const testing::ScratchDir dir;
  const auto path = dir.write("t.csv", "0,R,0,4096\n10,W,2147483648,4096\n20,W,3221225472,4096\n30,R,8192,4096\n");
  const auto w = Workload::parse("trace:csv:" + path);
  CHECK(w.number("fold") == 0);
  // Refused up front, before any request, with the count, the share and the ways out.
  CHECK_THROWS_WITH(w.open_stream(kDev, 0, 1),
                    Contains("2 of 4 requests (50.0%) lie beyond the device") &&
                        Contains("3221229568") && Contains("fold=1") && Contains("--model"));
  // Within the device: no note.
  CHECK(w.trace_notes({1ull << 40, 512}).empty());
}

TEST_CASE("trace workloads: several devices need dev=N or dev=all", "[sim][workload]") {
  const testing::ScratchDir dir;
  const auto path = dir.write("multi.ascii", "0 0 100 8 1\n1 3 200 8 1\n2 0 300 8 0\n3 7 400 8 1\n");
  CHECK_THROWS_WITH(Workload::parse("trace:ascii:" + path),
                    Contains("3 devices") && Contains("device: requests 0: 2, 3: 1, 7: 1") && Contains("dev=N") &&
                        Contains("dev=all"));
  CHECK(Workload::parse("trace:ascii:" + path + ",dev=3").trace()->records.size() == 1);
  const auto all = Workload::parse("trace:ascii:" + path + ",dev=all");
  CHECK(all.trace()->records.size() == 4);
  CHECK_THAT(all.spec(), Contains(",dev=all"));
  CHECK(Workload::parse(all.spec()).trace()->records.size() == 4);
}

TEST_CASE("trace workloads: time units, and a word when the timing looks wrong", "[sim][workload]") {
  const testing::ScratchDir dir;
  // 20 requests 2 ms apart, written in nanoseconds (as MQSim writes its ASCII traces).
  std::string ns;
  for (int i = 0; i < 20; ++i) ns += fmt::format("{} 0 {} 8 1\n", i * 2000000, i * 8);
  const auto path = dir.write("ns.ascii", ns);
  const auto as_ms = Workload::parse("trace:ascii:" + path);
  CHECK(as_ms.trace_rate_per_s() == Approx(1e-3 / 2 * 1000 / 1000));  // 0.0005 requests/s
  const auto notes = as_ms.trace_notes(kDev);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("very sparse") && Contains("time=ns: 500 requests/s"));
  const auto as_ns = Workload::parse("trace:ascii:" + path + ",time=ns");
  CHECK(as_ns.trace_rate_per_s() == Approx(500.0));
  CHECK(as_ns.trace_notes(kDev).empty());
  CHECK_THAT(as_ns.spec(), Contains("time=ns"));
  CHECK_THROWS_WITH(Workload::parse("trace:msr:" + path + ",time=ns"), Contains("time unit is fixed"));
}

TEST_CASE("trace workloads: a file read with the wrong format says what it looks like", "[sim][workload]") {
  const testing::ScratchDir dir;
  const auto msr = dir.write("hm_0.csv", "128166372003061629,hm,0,Read,383496192,32768,7123\n");
  CHECK_THROWS_WITH(Workload::parse("trace:csv:" + msr),
                    Contains("looks like a 'msr' trace") && Contains("trace:msr:" + msr));
  // Blkparse text holding only summary lines reads as no requests in any format.
  const auto blk = dir.write("sda.txt", "  8,0 0 1 0.0 1 D R 100 + 8 [a]\n");
  CHECK_THROWS_WITH(Workload::parse("trace:ascii:" + blk), Contains("looks like a 'blkparse' trace"));
}
