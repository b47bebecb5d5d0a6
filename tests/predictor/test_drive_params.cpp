// The profile's controller, bus and cache blocks: absent means the platter alone; given,
// they survive a round trip; bad values are refused by field, value and expectation.
#include <string>

#include <catch2/catch.hpp>

#include "predictor/profile.hpp"
#include "tests/predictor/profile_json.hpp"

using namespace disksched;
using nlohmann::json;
using namespace disksched::testing;

TEST_CASE("a profile without drive blocks is the platter alone, and stays so", "[drive]") {
  const DiskProfile p = profile_from_json(minimal(), "t.json");
  CHECK(p.drive.platter_only());
  CHECK_FALSE(p.drive.cache.enabled());
  const json back = profile_to_json(p);
  CHECK_FALSE(back.contains("controller"));
  CHECK_FALSE(back.contains("bus"));
  CHECK_FALSE(back.contains("cache"));
  CHECK(hp97560_profile().drive.platter_only());
  CHECK(hp97560_full_profile().drive.platter_only());
}

TEST_CASE("controller, bus and cache blocks survive a round trip", "[drive]") {
  json j = minimal();
  j["controller"] = {{"read_hit_after_read_ms", 0.95}, {"read_miss_after_write_ms", 0.56},
                     {"write_miss_after_write_ms", 0.82}, {"read_completion_ms", 0.057},
                     {"reselect_ms", 0.16}};
  j["bus"] = {{"read_sector_ms", 0.1701}, {"write_sector_ms", 0.18686}};
  j["cache"] = {{"segments", 2}, {"segment_sectors", 256}, {"continuous_read", 3},
                {"max_read_ahead", 128}, {"fast_write", 2}, {"combine_sequential_writes", true}};
  const DiskProfile p = profile_from_json(j, "t.json");
  CHECK(p.drive.controller.command_ms(false, false, false) == 0.95);
  CHECK(p.drive.controller.command_ms(false, true, true) == 0.56);
  CHECK(p.drive.controller.command_ms(true, true, true) == 0.82);
  CHECK(p.drive.controller.command_ms(true, false, false) == 0.0);
  CHECK(p.drive.bus.read_sector == 0.1701);
  CHECK(p.drive.cache.segments == 2);
  CHECK(p.drive.cache.write_segments == 2);  // absent: every segment may hold writes
  CHECK(p.drive.cache.write_behind());
  CHECK(profile_from_json(profile_to_json(p), "again.json").drive == p.drive);
}

TEST_CASE("bad drive blocks are refused by field, value and expectation", "[drive]") {
  json j = minimal();
  j["cache"] = {{"segments", -1}};
  CHECK(error_of(j) == "profile 't.json': field 'cache.segments': value -1: expected an integer "
                       "in [0, 1024]");
  j["cache"] = {{"segments", 2}};
  CHECK(error_of(j).find("field 'cache.segment_sectors'") != std::string::npos);
  j["cache"] = {{"segments", 2}, {"segment_sectors", 8}, {"fast_writes", 1}};
  CHECK(error_of(j).find("unknown field 'cache.fast_writes'; valid: ") != std::string::npos);
  j = minimal();
  j["bus"] = {{"read_sector_ms", "fast"}};
  CHECK(error_of(j) == "profile 't.json': field 'bus.read_sector_ms': value \"fast\": expected a "
                       "number in [0, 1000000]");
  j = minimal();
  j["controller"] = 3;
  CHECK(error_of(j) == "profile 't.json': field 'controller': value 3: expected an object");
}
