// The cost model export: iocost's linear model as blk-iocost.c computes it, the
// simulator's loads on a device whose cost is known exactly (fixed:ms=10), and the
// drive queue's gain on a drive of today.
#include <catch2/catch.hpp>

#include "bench/costmodel/cost_export.hpp"
#include "bench/costmodel/linear_model.hpp"
#include "bench/costmodel/throughput_probe.hpp"

using namespace disksched;

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;

Load load(bool write, bool seq, std::uint64_t bytes, std::size_t depth) {
  return Load{write, seq, bytes, depth};
}

}  // namespace

TEST_CASE("iocost's linear model gives back the IOPS it was made from") {
  const IocostParams p = iocost_builtin_hdd();
  const auto m = LinearCostModel::iocost(p);
  // A 4 KiB I/O is one page: its cost is exactly 1/iops.
  CHECK(m.iops(load(false, false, 4 * KiB, 1)) == Approx(370).epsilon(1e-12));
  CHECK(m.iops(load(false, true, 4 * KiB, 1)) == Approx(41708).epsilon(1e-12));
  CHECK(m.iops(load(true, false, 4 * KiB, 1)) == Approx(378).epsilon(1e-12));
  // A 1 MiB sequential read: the sequential cost plus 256 pages at 1/rbps each.
  const double page = 4096.0 / p.rbps;
  CHECK(m.cost_s(load(false, true, 1 * MiB, 1)) == Approx(1.0 / 41708 - page + 256 * page));
  // Partial pages count whole.
  CHECK(m.cost_s(load(false, false, 6 * KiB, 1)) == Approx(1.0 / 370 + page));
  // The model does not know depth.
  CHECK(m.iops(load(false, false, 4 * KiB, 32)) == m.iops(load(false, false, 4 * KiB, 1)));
}

TEST_CASE("an IOPS-and-bandwidth model charges sequential and random alike") {
  const auto m = LinearCostModel::iops_bandwidth(200, 100e6, 150, 80e6);
  CHECK(m.iops(load(false, false, 4 * KiB, 1)) == Approx(200));
  CHECK(m.iops(load(false, true, 4 * KiB, 1)) == Approx(200));
  CHECK(m.iops(load(true, false, 4 * KiB, 1)) == Approx(150));
  // 1 MiB writes: 1/150 s less one page at 80 MB/s, plus 256 pages.
  CHECK(m.cost_s(load(true, true, 1 * MiB, 1)) == Approx(1.0 / 150 + 255 * 4096 / 80e6));
}

TEST_CASE("a device of fixed service time: the probe's figures are exact") {
  auto model = load_model("fixed:ms=10");
  ThroughputProbe probe(*model, ProbeOptions{1, 500, 1});
  const LoadResult qd1 = probe.run(load(false, false, 4 * KiB, 1));
  CHECK(qd1.iops == Approx(100).epsilon(1e-9));
  CHECK(qd1.mean_ms == Approx(10).epsilon(1e-9));
  // Eight in flight at a device that serves them one by one: the same rate, eight times
  // the wait.
  const LoadResult qd8 = probe.run(load(true, true, 64 * KiB, 8));
  CHECK(qd8.iops == Approx(100).epsilon(1e-9));
  CHECK(qd8.mean_ms == Approx(80).epsilon(1e-9));
  CHECK(qd8.bytes_per_s == Approx(100 * 64 * 1024.0).epsilon(1e-9));
}

TEST_CASE("iocost's export of a fixed-time device, and its linear model's error") {
  auto model = load_model("fixed:ms=10");
  ExportOptions opt;
  opt.model_name = "fixed:ms=10";
  opt.device = "8:16";
  opt.probe = ProbeOptions{1, 500, 1};
  const ExportResult r = export_cost_model(*model, ExportFormat::Iocost, opt);
  CHECK(r.text.find("8:16 ctrl=user model=linear rbps=104857600 rseqiops=100 rrandiops=100 "
                    "wbps=104857600 wseqiops=100 wrandiops=100\n") != std::string::npos);
  REQUIRE(r.fit.size() == fit_loads().size());
  REQUIRE(r.fit.size() == 36);
  for (const FitRow& f : r.fit) {
    CHECK(f.sim.iops == Approx(100).epsilon(1e-9));
    if (f.load.bytes == 4 * KiB) CHECK(f.error() == Approx(0).margin(1e-9));
  }
  // A 1 MiB request costs the device the same 10 ms, but the linear model charges its
  // 256 pages at the bandwidth 1 MiB requests made: 1 / (0.01 - p + 256 p) with
  // p = 4096 / 104857600 s, about half the rate the device keeps.
  const double p = 4096.0 / 104857600.0;
  for (const FitRow& f : r.fit)
    if (f.load.bytes == 1 * MiB) CHECK(f.model_iops == Approx(1.0 / (0.01 + 255 * p)));
}

TEST_CASE("a drive of today gains from its own queue; without one, depth buys nothing") {
  auto model = load_model("sata7200-8tb");
  const Load qd1 = load(false, false, 4 * KiB, 1), qd32 = load(false, false, 4 * KiB, 32);
  ThroughputProbe ncq(*model, ProbeOptions{32, 1500, 1});
  ThroughputProbe fifo(*model, ProbeOptions{1, 1500, 1});
  const double ncq1 = ncq.run(qd1).iops, ncq32 = ncq.run(qd32).iops;
  const double fifo1 = fifo.run(qd1).iops, fifo32 = fifo.run(qd32).iops;
  CHECK(ncq32 > 1.5 * ncq1);
  CHECK(fifo32 < 1.1 * fifo1);
  CHECK(fifo32 > 0.9 * fifo1);
  CHECK(ncq1 == Approx(fifo1).epsilon(0.1));
}

TEST_CASE("a sequential load is one stream at any depth, as fio's iodepth: read-ahead "
          "serves it at 32 in flight as at 1") {
  auto model = load_model("sata7200-8tb");
  ThroughputProbe ncq(*model, ProbeOptions{32, 1500, 1});
  const double seq1 = ncq.run(load(false, true, 4 * KiB, 1)).iops;
  const double seq32 = ncq.run(load(false, true, 4 * KiB, 32)).iops;
  const double rand32 = ncq.run(load(false, false, 4 * KiB, 32)).iops;
  CHECK(seq32 == Approx(seq1).epsilon(0.05));
  CHECK(seq32 > 20 * rand32);  // 32 streams would seek between them: about rand32
}

TEST_CASE("export formats by name") {
  CHECK(parse_export_format("iocost") == ExportFormat::Iocost);
  CHECK(parse_export_format("fio") == ExportFormat::Fio);
  CHECK_THROWS_WITH(parse_export_format("bfq"), Catch::Contains("iocost, mclock, seastar or fio"));
}
