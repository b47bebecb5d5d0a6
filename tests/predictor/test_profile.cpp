// Geometry profiles: round trip, built-ins, and errors that name field, value, expectation.
#include <cstdio>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "predictor/profile.hpp"
#include "tests/predictor/zoned_profile.hpp"

using namespace disksched;
using nlohmann::json;

namespace {

std::string error_of(const json& j) {
  try {
    profile_from_json(j, "t.json");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

json minimal() {
  return json::parse(R"({"version": 1, "heads": 2, "rpm": 7200,
    "zones": [{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 50}],
    "seek": {"form": "two-piece", "short": {"a": 1, "b": 0.1}, "boundary": 5,
             "long": {"a": 1.5, "b": 0.01}}})");
}

}  // namespace

TEST_CASE("a profile survives JSON round trip and builds the same model", "[profile]") {
  DiskProfile p = testing::zoned_profile(true);
  p.track_phase = {{3, 1, 0.125}};
  DiskProfile q = profile_from_json(profile_to_json(p), "roundtrip");
  CHECK(profile_to_json(q) == profile_to_json(p));
  DiskModel a(p), b(q);
  CHECK(a.lbas() == b.lbas());
  CHECK(b.track_angle(3, 1) == 0.125);
}

TEST_CASE("load_model knows the built-ins and reads profile files", "[profile]") {
  CHECK(load_model("hp97560")->name() == "hp97560");
  CHECK(load_model("hp97560-full")->name() == "hp97560-full");
  CHECK(load_model("fixed:ms=10")->kind() == "fixed");
  const std::string path = "test_profile_tmp.json";
  save_profile(testing::zoned_profile(false), path);
  auto m = load_model(path);
  CHECK(m->name() == "zoned-test");
  CHECK(m->cylinders() == 100);
  std::remove(path.c_str());
  CHECK_THROWS_WITH(load_model("hp9756"), Catch::Contains("unknown model 'hp9756'"));
  CHECK_THROWS_WITH(load_model("nonexistent.json"), Catch::Contains("cannot open"));
  CHECK_THROWS_WITH(load_model("fixed:ms=-1"), Catch::Contains("ms='-1'"));
}

TEST_CASE("bad profiles fail with the field, the value and what was expected", "[profile]") {
  CHECK(error_of(minimal()).empty());
  json j = minimal();
  j["zones"][0]["sectors_per_track"] = -3;
  CHECK_THAT(error_of(j), Catch::Contains("zones[0].sectors_per_track") &&
                              Catch::Contains("-3") && Catch::Contains("an integer in [1,"));
  j = minimal();
  j["heads"] = "many";
  CHECK_THAT(error_of(j), Catch::Contains("'heads'") && Catch::Contains("\"many\""));
  j = minimal();
  j["seek"]["form"] = "cubic";
  CHECK_THAT(error_of(j), Catch::Contains("seek.form") && Catch::Contains("two-piece"));
  j = minimal();
  j["zones"].push_back({{"first_cylinder", 12}, {"last_cylinder", 20}, {"sectors_per_track", 40}});
  CHECK_THAT(error_of(j), Catch::Contains("zones[1].first_cylinder") && Catch::Contains("10"));
  j = minimal();
  j["rotation_ms"] = 8.3;
  CHECK_THAT(error_of(j), Catch::Contains("exactly one of 'rpm' and 'rotation_ms'"));
  j = minimal();
  j["colour"] = "blue";
  CHECK_THAT(error_of(j), Catch::Contains("unknown field 'colour'"));
  j = minimal();
  j["version"] = 2;
  CHECK_THAT(error_of(j), Catch::Contains("version"));
  j = minimal();
  j.erase("seek");
  CHECK_THAT(error_of(j), Catch::Contains("'seek' is missing"));
  j = minimal();
  j["defects"] = json::array({{{"cylinder", 0}, {"head", 0}, {"sector", 50}}});
  CHECK_THAT(error_of(j), Catch::Contains("defects[0].sector") && Catch::Contains("50"));
  j = minimal();
  j["seek"] = {{"form", "table"}, {"points", {{5, 2.0}, {3, 1.0}}}};
  CHECK_THAT(error_of(j), Catch::Contains("seek.points[1]"));
}
