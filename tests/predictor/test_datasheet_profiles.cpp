// The datasheet profiles meet the figures they were computed from, measured through
// the model (not through the formulas that built them).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "predictor/datasheet_profiles.hpp"
#include "predictor/disk_model.hpp"

using namespace disksched;

namespace {

// The datasheets' weighted average over every seek length n of the drive:
// sum (max + 1 - n) T(n) / sum (max + 1 - n), n = 1..max (Hitachi's definition).
double datasheet_average_seek(const DiskModel& m) {
  const std::int64_t max = m.cylinders() - 1;
  long double num = 0, den = 0;
  for (std::int64_t n = 1; n <= max; ++n) {
    num += static_cast<long double>(max + 1 - n) * m.seek_ms(n);
    den += static_cast<long double>(max + 1 - n);
  }
  return static_cast<double>(num / den);
}

// MB/s (10^6 bytes) reading `cylinders` whole cylinders from the first sector of
// `first`, transfer only (switches and skews included, positioning not).
double sustained_mb_s(const DiskModel& m, std::int64_t first, std::int64_t cylinders) {
  const std::uint64_t lba = m.chs_to_lba({first, 0, 0});
  const std::uint64_t end =
      first + cylinders == m.cylinders() ? m.lbas() : m.chs_to_lba({first + cylinders, 0, 0});
  const std::uint64_t bytes = (end - lba) * m.sector_bytes();
  HeadState h;
  h.cylinder = first;
  const Cost c = m.service(h, Op::Read, lba * m.sector_bytes(), static_cast<std::uint32_t>(bytes));
  return static_cast<double>(bytes) / (c.transfer_ms * 1e3);
}

// The datasheet's capacity (`bytes`, and less than `over` more), average rotational
// latency (half a revolution) and average seek.
void check_capacity_latency_seek(const DiskModel& m, std::uint64_t bytes, std::uint64_t over,
                                 Approx latency_ms, double average_seek_ms) {
  CHECK(m.capacity_bytes() >= bytes);
  CHECK(m.capacity_bytes() <= bytes + over);
  CHECK(m.rotation_ms() / 2 == latency_ms);
  CHECK(datasheet_average_seek(m) == Approx(average_seek_ms).epsilon(0.005));
}

// The single-track and full-stroke seeks.
void check_seek_ends(const DiskModel& m, double single_ms, double full_stroke_ms) {
  CHECK(m.seek_ms(1) == Approx(single_ms));
  CHECK(m.seek_ms(m.cylinders() - 1) == Approx(full_stroke_ms));
}

}  // namespace

TEST_CASE("sata7200-8tb meets its datasheet figures") {
  const DiskModel m(*datasheet_builtin("sata7200-8tb"));
  CHECK(m.sector_bytes() == 512);
  // 8 TB, and not much more (the zones overshoot by less than a cylinder each). Average
  // latency 4.16 ms: half a revolution at 7200 rpm.
  check_capacity_latency_seek(m, 8'000'000'000'000ull, 4'000'000'000ull,
                              Approx(4.1667).margin(0.001), 8.0);
  check_seek_ends(m, 0.8, 16.0);
  // 205 MB/s sustained at the outer edge, switches included; inner about half.
  CHECK(sustained_mb_s(m, 0, 4) == Approx(205).epsilon(0.01));
  CHECK(sustained_mb_s(m, m.cylinders() - 4, 4) == Approx(102.5).epsilon(0.01));
  // Outer tracks carry twice the inner ones' sectors; 512e: whole 4 KiB sectors.
  const std::uint32_t outer = m.sectors_per_track(0), inner = m.sectors_per_track(m.cylinders() - 1);
  CHECK(static_cast<double>(outer) / inner == Approx(2.0).epsilon(0.01));
  CHECK(outer % 8 == 0);
  CHECK(inner % 8 == 0);
  // Hundreds of thousands of cylinders, described by a handful of zones.
  CHECK(m.cylinders() > 400'000);
  CHECK(m.profile().zones.size() == 24);
}

TEST_CASE("sequential transfer loses no revolution at a track or cylinder switch") {
  for (const char* name : {"sata7200-8tb", "laptop5400-320gb", "sas15k-600gb-4kn"}) {
    INFO(name);
    const DiskModel m(*datasheet_builtin(name));
    const std::uint32_t spt = m.sectors_per_track(0);
    const std::int32_t heads = m.heads();
    // Two cylinders: every switch costs its skew, well under a revolution.
    const std::uint64_t bytes = 2ull * heads * spt * m.sector_bytes();
    HeadState h;
    const Cost c = m.service(h, Op::Read, 0, static_cast<std::uint32_t>(bytes));
    CHECK(c.transfer_ms < (2 * heads + 0.5 * (2 * heads - 1)) * m.rotation_ms());
  }
}

TEST_CASE("the 5400 rpm and 15k rpm profiles meet their datasheet figures") {
  SECTION("laptop5400-320gb: Travelstar 5K320 seek figures") {
    const DiskModel m(*datasheet_builtin("laptop5400-320gb"));
    check_capacity_latency_seek(m, 320'000'000'000ull, 200'000'000ull, Approx(5.5).margin(0.06),
                                12.0);
    check_seek_ends(m, 1.0, 20.0);
  }
  SECTION("sas15k-600gb: Cheetah 15K.7 rates, inner and outer") {
    const DiskModel m(*datasheet_builtin("sas15k-600gb"));
    check_capacity_latency_seek(m, 600'000'000'000ull, 200'000'000ull, Approx(2.0), 3.4);
    CHECK(sustained_mb_s(m, 0, 4) == Approx(204).epsilon(0.01));
    CHECK(sustained_mb_s(m, m.cylinders() - 4, 4) == Approx(122).epsilon(0.01));
  }
}

TEST_CASE("format suffixes: 4Kn exports 4 KiB sectors of the same drive") {
  const DiskModel e(*datasheet_builtin("sata7200-8tb"));
  const DiskModel k(*datasheet_builtin("sata7200-8tb-4kn"));
  CHECK(k.sector_bytes() == 4096);
  CHECK(k.name() == "sata7200-8tb-4kn");
  CHECK(k.cylinders() == e.cylinders());
  CHECK(k.capacity_bytes() == e.capacity_bytes());
  CHECK(k.sectors_per_track(0) * 8 == e.sectors_per_track(0));
  const DiskModel n(*datasheet_builtin("sas15k-600gb-512n"));
  CHECK(n.sector_bytes() == 512);
  CHECK_FALSE(datasheet_builtin("sata7200-8tb-520"));
  CHECK_FALSE(datasheet_builtin("sata7200"));
  CHECK(load_model("laptop5400-320gb-4kn")->sector_bytes() == 4096);
  CHECK_THROWS_WITH(load_model("sata7200-9tb"),
                    Catch::Contains("sata7200-8tb") && Catch::Contains("-4kn"));
}

TEST_CASE("a datasheet profile stays small and survives a round trip through JSON") {
  for (const std::string& name : datasheet_builtin_names()) {
    INFO(name);
    const DiskProfile p = *datasheet_builtin(name);
    const std::string text = profile_to_json(p).dump();
    CHECK(text.size() < 16 * 1024);
    const DiskModel a(p), b(profile_from_json(nlohmann::json::parse(text), name));
    CHECK(a.capacity_bytes() == b.capacity_bytes());
    CHECK(a.cylinders() == b.cylinders());
    CHECK(a.seek_ms(1000) == b.seek_ms(1000));
  }
}

TEST_CASE("datasheet figures that cannot be met together are refused, saying which") {
  // An average seek of 4 ms: a curve rising to 16 ms averages more than this.
  DatasheetSpec d{.name = "odd", .capacity_bytes = 1e12, .rpm = 7200, .heads = 4, .zones = 4,
                  .sustained_outer_mb_s = 200, .sustained_inner_mb_s = 100, .avg_seek_ms = 4.0,
                  .single_track_ms = 1.0, .full_stroke_ms = 16.0, .overhead_ms = {}};
  CHECK_THROWS_WITH(datasheet_profile(d), Catch::Contains("average seek of 4 ms") &&
                                              Catch::Contains("full-stroke"));
  d.avg_seek_ms = 8.0;
  d.physical_sector_bytes = 1000;
  CHECK_THROWS_WITH(datasheet_profile(d), Catch::Contains("multiple of the logical sector"));
}

TEST_CASE("512e: a write that covers 4 KiB physical sectors only in part costs one revolution more") {
  const DiskModel m(*datasheet_builtin("sata7200-8tb"));
  REQUIRE(m.sector_bytes() == 512);
  REQUIRE(m.physical_sector_bytes() == 4096);
  const std::uint64_t base = 8ull * 123457 * 512;  // a physical sector's start, bytes
  HeadState h;
  h.cylinder = 1000;
  h.time_ms = 3.21;
  const Cost whole = m.service(h, Op::Write, base, 4096);
  SECTION("aligned writes of whole physical sectors are plain writes") {
    const Cost read = m.service(h, Op::Read, base, 4096);
    CHECK(whole.transfer_ms == Approx(read.transfer_ms));
    CHECK(whole.rotation_ms == read.rotation_ms);
    CHECK(m.service(h, Op::Write, base, 8192).transfer_ms ==
          Approx(2 * whole.transfer_ms).epsilon(1e-9));
  }
  SECTION("512 bytes inside a physical sector: read it on one pass, write it on the next") {
    const Cost part = m.service(h, Op::Write, base + 3 * 512, 512);
    CHECK(part.positioning_ms() == whole.positioning_ms());
    CHECK(part.transfer_ms == Approx(whole.transfer_ms + m.rotation_ms()));
    // The scheduler's estimate starts where the service does: at the physical sector.
    const Location loc = m.locate((base + 3 * 512) / 512, 1, Op::Write);
    CHECK(m.positioning_ms(h, loc) == part.positioning_ms());
    // A read of the same 512 bytes needs no whole sector.
    CHECK(m.service(h, Op::Read, base + 3 * 512, 512).transfer_ms < whole.transfer_ms);
  }
  SECTION("a 4 KiB write straddling two physical sectors rewrites both") {
    const Cost straddle = m.service(h, Op::Write, base + 4 * 512, 4096);
    const Cost both = m.service(h, Op::Write, base, 8192);
    CHECK(straddle.positioning_ms() == both.positioning_ms());
    CHECK(straddle.transfer_ms == Approx(both.transfer_ms + m.rotation_ms()));
  }
  SECTION("4Kn and 512n drives have no partial physical sectors") {
    const DiskModel n(*datasheet_builtin("sata7200-8tb-512n"));
    const Cost a = n.service(h, Op::Write, base + 3 * 512, 512);
    CHECK(a.transfer_ms < n.rotation_ms() / 100);
    const DiskModel k(*datasheet_builtin("sata7200-8tb-4kn"));
    CHECK(k.physical_sector_bytes() == 4096);
    CHECK(k.service(h, Op::Write, base, 4096).transfer_ms < k.rotation_ms() / 100);
  }
}

TEST_CASE("profiles carry the physical sector size, checked on load") {
  DiskProfile p = *datasheet_builtin("sata7200-8tb");
  nlohmann::json j = profile_to_json(p);
  CHECK(j.at("physical_sector_bytes") == 4096);
  CHECK(DiskModel(profile_from_json(j, "t")).physical_sector_bytes() == 4096);
  // Absent: the same as sector_bytes, and not written back.
  const nlohmann::json n = profile_to_json(*datasheet_builtin("sata7200-8tb-4kn"));
  CHECK_FALSE(n.contains("physical_sector_bytes"));
  j["physical_sector_bytes"] = 3000;
  CHECK_THROWS_WITH(profile_from_json(j, "t"),
                    Catch::Contains("physical_sector_bytes") && Catch::Contains("e.g. 4096 for 512e"));
  j["physical_sector_bytes"] = 256;
  CHECK_THROWS_WITH(profile_from_json(j, "t"), Catch::Contains("an integer in [512,"));
  j["physical_sector_bytes"] = 4096;
  j["zones"][0]["sectors_per_track"] = 3001;
  CHECK_THROWS_WITH(profile_from_json(j, "t"),
                    Catch::Contains("zones[0].sectors_per_track") && Catch::Contains("a multiple of 8"));
}

TEST_CASE("a datasheet drive has its buffer and bus; -nocache is the platter alone") {
  const DiskProfile p = *datasheet_builtin("sata7200-8tb");
  // 256 MB in 128 segments of 2 MiB (4096 sectors of 512 bytes) for reads, read-ahead
  // on; writes in a buffer by size (a 64th of the buffer), not one per segment.
  CHECK(p.drive.has_cache);
  CHECK(p.drive.cache.segments == 128);
  CHECK(p.drive.cache.segment_sectors == 4096);
  CHECK_FALSE(p.drive.cache.write_behind());
  CHECK(p.drive.cache.write_buffer());
  CHECK(p.drive.cache.write_buffer_bytes == (256ull << 20) / 64);
  CHECK(p.drive.cache.write_buffer_window == 0);
  CHECK(p.drive.cache.continuous_read == 3);
  CHECK(p.drive.cache.max_read_ahead == 4096);
  // SATA 6 Gb/s: 600 MB/s, 512 bytes in 0.853 us.
  CHECK(p.drive.bus.read_sector == Approx(512 / 600e3));
  const DiskProfile k = *datasheet_builtin("sata7200-8tb-4kn");
  CHECK(k.drive.cache.segment_sectors == 512);
  // 8 MB: 4 segments.
  CHECK(datasheet_builtin("laptop5400-320gb")->drive.cache.segments == 4);
  CHECK(k.drive.bus.write_sector == Approx(4096 / 600e3));
  const DiskProfile n = *datasheet_builtin("sata7200-8tb-nocache");
  CHECK(n.name == "sata7200-8tb-nocache");
  CHECK(n.drive.platter_only());
  CHECK(n.zones.size() == p.zones.size());
  CHECK(datasheet_builtin("sata7200-8tb-4kn-nocache")->sector_bytes == 4096);
  CHECK_FALSE(datasheet_builtin("sata7200-8tb-nocache-4kn"));
  // The blocks survive a round trip through JSON.
  CHECK(profile_from_json(profile_to_json(p), "t").drive == p.drive);
}

TEST_CASE("st2000dm006: Seagate's figures, the fitted ones as the profile names them") {
  const DiskProfile p = *datasheet_builtin("st2000dm006");
  const DiskModel m(p);
  CHECK(m.capacity_bytes() >= 2000398934016ull);
  CHECK(m.capacity_bytes() < 2000398934016ull + 64ull * 4096 * 4);  // within a cylinder or so
  CHECK(p.rotation_ms == Approx(60000.0 / 7200));
  CHECK(p.sector_bytes == 512);
  CHECK(p.physical_sector_bytes == 4096);  // 512e
  CHECK(p.write_settle_ms == 1.0);         // 9.5 ms write against 8.5 ms read seek
  CHECK(p.drive.cache.segments * p.drive.cache.segment_sectors * 512ull == 64ull << 20);
  CHECK(p.drive.cache.write_buffer_bytes == 1u << 20);
  CHECK(p.drive.cache.write_buffer_window == 4);
  CHECK(p.drive.bus.read_sector == Approx(512 / 600e3));
  CHECK(p.source.at("fitted").contains("overhead_ms"));
  CHECK(p.source.at("datasheet").contains("avg_seek_ms"));
  CHECK(profile_from_json(profile_to_json(p), "t").drive == p.drive);
}
