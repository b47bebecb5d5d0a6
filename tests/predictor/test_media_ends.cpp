// DiskModel::media_ends walks a media run once; DeviceModel's own answers each prefix
// with a service() call. Both must give the same doubles, bit for bit: on skewed and
// zoned disks, across tracks, cylinders and zones, on DiskSim drives with slips, spares
// and defects, and for a 512e drive's read-modify-writes.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"

using namespace disksched;

namespace {

void check_extent(const DeviceModel& m, const HeadState& from, Op op, std::uint64_t lba,
                  std::uint64_t count) {
  std::vector<Millis> fast, slow;
  m.media_ends(from, op, lba, count, fast);
  m.DeviceModel::media_ends(from, op, lba, count, slow);
  REQUIRE(fast.size() == slow.size());
  for (std::size_t i = 0; i < fast.size(); ++i) {
    INFO(m.name() << " " << op_name(op) << " lba " << lba << " count " << count << " prefix " << i + 1);
    REQUIRE(fast[i] == slow[i]);
  }
}

void check_model(const DeviceModel& m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint64_t lbas = m.capacity_bytes() / m.sector_bytes();
  HeadState from = m.initial_state();
  for (int i = 0; i < 60; ++i) {
    const std::uint64_t count = 1 + rng() % 700;  // up to several tracks of the old disks
    const std::uint64_t lba = rng() % (lbas - count);
    from.time_ms += static_cast<double>(rng() % 100000) / 7.0;
    from.cylinder = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(m.cylinders()));
    check_extent(m, from, i % 2 ? Op::Write : Op::Read, lba, count);
  }
  // The last sectors of the device, and runs that start mid physical sector.
  check_extent(m, from, Op::Write, lbas - 37, 37);
  check_extent(m, from, Op::Write, 3, 29);
  check_extent(m, from, Op::Read, 0, 1);
}

}  // namespace

TEST_CASE("media_ends: one walk gives each prefix's service() end, bit for bit") {
  for (const char* name : {"hp97560", "hp97560-full", "gp93", "sata7200-8tb", "laptop5400-320gb-4kn",
                           "sas15k-600gb"}) {
    auto m = load_model(name);
    check_model(*m, 7);
  }
}

TEST_CASE("media_ends on DiskSim drives: slips, spares, defects") {
  for (const char* parv : {"hp_c2247a.parv", "dec_rz26.parv", "cheetah9LP.parv", "ibm18es.parv"}) {
    const auto imp = disksim::import_disksim(std::string(DISKSIM_VALID_DIR) + "/" + parv);
    DiskModel m(imp.profile);
    check_model(m, 11);
  }
}
