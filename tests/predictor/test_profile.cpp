// Geometry profiles: round trip, built-ins, and errors that name field, value, expectation.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "predictor/disk_model.hpp"
#include "predictor/profile.hpp"
#include "tests/predictor/profile_json.hpp"
#include "tests/predictor/zoned_profile.hpp"

using namespace disksched;
using nlohmann::json;
using namespace disksched::testing;

TEST_CASE("a profile survives JSON round trip and builds the same model", "[profile]") {
  DiskProfile p = testing::zoned_profile(true);
  p.track_phase = {{3, 1, 0.125}};
  DiskProfile q = profile_from_json(profile_to_json(p), "roundtrip");
  CHECK(profile_to_json(q) == profile_to_json(p));
  DiskModel a(p), b(q);
  CHECK(a.lbas() == b.lbas());
  CHECK(b.track_angle(3, 1) == 0.125);
}

TEST_CASE("the layout and seek fields of a real drive survive the round trip; older "
          "profiles save as they were",
          "[profile]") {
  DiskProfile p = testing::zoned_profile(false);
  p.layout = {Mapping::Serpentine, Sparing::SectorsPerRange, 2};
  p.zones[0].first_block_sectors = 7;
  p.zones[0].empty_front = 11;
  p.zones[0].spares = 5;
  p.zones[0].slips = {3, 200};
  p.zones[1].spares = 5;
  p.zones[1].remaps = {{9, 799}};
  p.zones[2].spares = 5;
  p.zones[2] = ZoneSpec{62, 99, 80, {}, {}};  // a gap: cylinders 60 and 61 hold no data
  p.zones[2].spares = 5;
  p.write_settle_ms = -0.25;
  p.seek.form = SeekCurveSpec::Form::FirstTenTwoPiece;
  p.seek.first_ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const json j = profile_to_json(p);
  CHECK(j["layout"]["sparing"] == "sectors-per-range");
  CHECK(j["layout"]["range_cylinders"] == 2);
  CHECK(j["zones"][0]["slips"] == json::array({3, 200}));
  CHECK(j["zones"][1]["remaps"] == json::array({json::array({9, 799})}));
  const DiskProfile q = profile_from_json(j, "roundtrip");
  CHECK(profile_to_json(q) == j);
  CHECK(DiskModel(q).lbas() == DiskModel(p).lbas());
  const json curve = {{"form", "curve"}, {"single_cylinder_ms", 1}, {"average_ms", 5}, {"full_stroke_ms", 9}};
  json k = j;
  k["seek"] = curve;
  CHECK(profile_to_json(profile_from_json(k, "curve"))["seek"] == curve);
  k["seek"] = {{"form", "table"}, {"points", {{1, 1.0}, {9, 2.0}}}, {"beyond", "linear"}};
  CHECK(profile_from_json(k, "table").seek.extrapolate);
  // Older profiles: none of the new keys appear.
  const json old = profile_to_json(testing::zoned_profile(true));
  for (const char* key : {"layout", "write_settle_ms"}) CHECK_FALSE(old.contains(key));
  CHECK_FALSE(old["zones"][0].contains("spares"));
  // A gap needs the layout that explains it.
  k = j;
  k.erase("layout");
  CHECK_THAT(error_of(k), Catch::Contains("zones[2].first_cylinder") &&
                              Catch::Contains("gaps need a \"layout\""));
  k = j;
  k["layout"]["sparing"] = "sometimes";
  CHECK_THAT(error_of(k), Catch::Contains("layout.sparing") && Catch::Contains("\"tracks-per-zone\""));
  k = j;
  k["zones"][0]["slips"] = {1, -2};
  CHECK_THAT(error_of(k), Catch::Contains("zones[0].slips[1]"));
}

TEST_CASE("zones with a gap but no sparing save with the layout that lets them load",
          "[profile]") {
  DiskProfile p = testing::zoned_profile(false);
  p.zones[2] = ZoneSpec{62, 99, 80, {}, {}};  // cylinders 60 and 61 hold no data
  REQUIRE(p.layout.sparing == Sparing::None);
  const json j = profile_to_json(p);
  REQUIRE(j.contains("layout"));
  CHECK(j["layout"]["sparing"] == "none");
  const DiskProfile q = profile_from_json(j, "gap");
  CHECK(profile_to_json(q) == j);
  CHECK(DiskModel(q).lbas() == DiskModel(p).lbas());
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
  // Every name the help texts list loads, and the refusal lists them all.
  for (const std::string& name : builtin_model_names()) {
    INFO(name);
    CHECK(load_model(name)->name().rfind(name, 0) == 0);
    CHECK_THROWS_WITH(load_model("hp9756"), Catch::Contains(name));
  }
  CHECK(builtin_model_names().size() == 9);
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

TEST_CASE("turn_track learns one track's angle as a measured track_phase would",
          "[profile][track_phase]") {
  // Model a has tracks (31, 2) (with a slipped defect) and (60, 0) (first of a zone) at
  // measured angles; model b learns the same angles into a TrackAngles value through
  // turn_track, called through the DeviceModel interface, and is asked with it. Every
  // cost that passes those tracks must agree; b itself does not change.
  DiskProfile p = testing::zoned_profile(true);
  const DiskModel plain(p);
  p.track_phase = {{31, 2, 0.7}, {60, 0, 0.05}};
  const DiskModel a(p);
  const DiskModel b(testing::zoned_profile(true));
  const DeviceModel& bm = b;
  TrackAngles learnt;
  bm.turn_track(learnt, 31, 2, 0.7 - b.track_angle(31, 2) + 3.0);  // whole turns ignored
  bm.turn_track(learnt, 60, 0, 0.5);
  bm.turn_track(learnt, 60, 0, 0.05 - b.track_angle(60, 0, &learnt));  // from the learnt angle
  REQUIRE(learnt.size() == 2);
  CHECK(b.track_angle(31, 2, &learnt) == Approx(0.7).margin(1e-12));
  CHECK(b.track_angle(60, 0, &learnt) == Approx(0.05).margin(1e-12));
  CHECK(b.track_angle(31, 2) == plain.track_angle(31, 2));  // the model stays as loaded
  CHECK(b.track_phase_overrides() == 0);
  // The neighbours keep their skew-derived angles.
  CHECK(b.track_angle(31, 1, &learnt) == plain.track_angle(31, 1));
  CHECK(b.track_angle(31, 3, &learnt) == plain.track_angle(31, 3));
  CHECK(b.track_angle(59, 3, &learnt) == plain.track_angle(59, 3));
  CHECK(b.track_angle(60, 1, &learnt) == plain.track_angle(60, 1));
  // A real difference: the learnt track is far from its skew-derived angle.
  CHECK(std::abs(plain.track_angle(31, 2) - 0.7) > 0.01);

  // Requests starting on, ending on and crossing the turned tracks.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> reqs;
  for (const Chs& t : {Chs{31, 2, 0}, Chs{60, 0, 0}}) {
    const std::uint64_t first = a.chs_to_lba(t);
    const std::uint32_t spt = a.sectors_per_track(t.cylinder);
    for (std::uint64_t lba = first - 5; lba < first + spt + 5; lba += 3)
      for (std::uint32_t n : {1u, 7u, 40u}) reqs.push_back({lba, n});
  }
  int compared = 0;
  for (const auto& [lba, n] : reqs) {
    INFO("lba " << lba << " sectors " << n);
    CHECK(bm.locate(lba, n, Op::Read, learnt).angle ==
          Approx(a.locate(lba, n, Op::Read).angle).margin(1e-12));
    CHECK(bm.end_angle(lba, n, learnt) == Approx(a.end_angle(lba, n)).margin(1e-12));
    for (const HeadState from : {HeadState{3.1, 0, 0, 0.0, 1, {}}, HeadState{17.77, 31, 2, 0.0, 1, {}},
                                 HeadState{40.2, 99, 3, 0.0, 1, {}}}) {
      const Cost ca = a.service(from, Op::Write, lba * 512, n * 512);
      const Cost cb = bm.service(from, Op::Write, lba * 512, n * 512, learnt);
      CHECK(cb.rotation_ms == Approx(ca.rotation_ms).margin(1e-9));
      CHECK(cb.transfer_ms == Approx(ca.transfer_ms).margin(1e-9));
      CHECK(cb.end.time_ms == Approx(ca.end.time_ms).margin(1e-9));
      CHECK(b.positioning_ms(from, bm.locate(lba, n, Op::Write, learnt)) ==
            Approx(a.positioning_ms(from, a.locate(lba, n, Op::Write))).margin(1e-9));
      ++compared;
    }
  }
  CHECK(compared > 100);
  // ... and they differ from the model without them somewhere (the test can fail).
  const std::uint64_t on_track = a.chs_to_lba({60, 0, 10});
  CHECK(std::abs(b.locate(on_track, 1, Op::Read).angle -
                 bm.locate(on_track, 1, Op::Read, learnt).angle) > 0.01);

  CHECK_THROWS_WITH(b.turn_track(learnt, 100, 0, 0.1), Catch::Contains("cylinder 100 head 0"));
  CHECK_THROWS_WITH(b.turn_track(learnt, 5, 4, 0.1), Catch::Contains("no such track"));
  CHECK_THROWS_WITH(b.turn_track(learnt, 5, 1, std::nan("")), Catch::Contains("finite"));
  CHECK(learnt.size() == 2);
}

TEST_CASE("current_profile saves the refined period and track angles; loaded, it builds "
          "the refined model",
          "[profile][track_phase]") {
  DiskProfile p = testing::zoned_profile(true);
  p.track_phase = {{12, 1, 0.3}};
  const DiskModel live(p);
  const Millis refined = p.rotation_ms * 1.002;
  RotationState state;
  state.spin = Spin::anchored(100.0, 0.25, refined);
  auto learnt = std::make_shared<TrackAngles>();
  live.turn_track(*learnt, 60, 0, 0.125);
  live.turn_track(*learnt, 31, 2, -0.2);
  state.tracks = learnt;

  const DiskProfile cur = live.current_profile(state);
  CHECK(cur.rotation_ms == refined);
  REQUIRE(cur.track_phase.size() == 3);  // the measured one and the two learnt
  CHECK(cur.track_phase[0].cylinder == 12);
  CHECK(cur.track_phase[1].cylinder == 31);
  CHECK(cur.track_phase[2].cylinder == 60);
  CHECK(live.profile().rotation_ms == p.rotation_ms);  // profile() stays as loaded

  // Through a file, as `disksched ctl SOCKET save PATH` writes it.
  const std::string path = "test_current_profile.json";
  save_profile(cur, path);
  const DiskModel next(load_profile(path));
  std::remove(path.c_str());
  CHECK(next.rotation_ms() == Approx(refined).epsilon(1e-15));
  for (const auto& [c, h] : std::vector<std::pair<std::int64_t, std::int32_t>>{
           {12, 1}, {31, 2}, {60, 0}, {31, 1}, {59, 3}})
    CHECK(next.track_angle(c, h) == Approx(live.track_angle(c, h, learnt.get())).margin(1e-12));
  // And the learnt tracks differ from what the skews alone give (the test can fail).
  const DiskModel plain(testing::zoned_profile(true));
  CHECK(std::abs(next.track_angle(60, 0) - plain.track_angle(60, 0)) > 0.1);
}

namespace {

// Writes `text` to a file and loads it as a profile; returns the error ("" if none).
std::string load_error(const std::string& text) {
  const std::string path = "test_profile_bad_tmp.json";
  std::ofstream(path) << text;
  std::string error;
  try {
    load_profile(path);
  } catch (const ModelError& e) {
    error = e.what();
  }
  std::remove(path.c_str());
  return error;
}

std::string nested(const std::string& key, int levels) {
  std::string j = minimal().dump();
  j.pop_back();
  return j + ",\"" + key + "\":" + std::string(levels, '[') + std::string(levels, ']') + "}";
}

}  // namespace

TEST_CASE("deeply nested JSON is refused while parsing, as a field error", "[profile]") {
  // 200,000 levels overflowed the stack of whoever walked it (filter, diskemu, CLI).
  for (const char* key : {"source", "name"}) {
    INFO(key);
    const std::string e = load_error(nested(key, 200000));
    CHECK_THAT(e, Catch::Contains(std::string("field '") + key + "[][][][][]...'") &&
                      Catch::Contains("nested deeper than 64 levels"));
  }
  // A free-form source nested a little is still fine.
  CHECK(load_error(nested("source", 10)) == "");
}

TEST_CASE("profile values that cannot be meant are refused with the field", "[profile]") {
  auto with_zone = [](std::int64_t last, std::int64_t spt, std::int64_t heads, std::int64_t bytes) {
    json j = minimal();
    j["zones"][0]["last_cylinder"] = last;
    j["zones"][0]["sectors_per_track"] = spt;
    j["heads"] = heads;
    j["sector_bytes"] = bytes;
    return j;
  };
  // A per-cylinder seek table is built up front: 2^27 cylinders were 1 GiB.
  CHECK_THAT(error_of(with_zone((1ll << 27) - 1, 50, 2, 512)),
             Catch::Contains("field 'zones[0].last_cylinder'") &&
                 Catch::Contains("an integer in [0, 4194303]"));
  // 2^22 cylinders x 1024 heads x 2^20 sectors x 2^20 bytes wrapped around 2^64.
  CHECK_THAT(error_of(with_zone((1ll << 22) - 1, 1 << 20, 1024, 1 << 20)),
             Catch::Contains("field 'zones'") && Catch::Contains("at most 9223372036854775807 bytes"));
  CHECK(error_of(with_zone(16383, 1 << 20, 1024, 512)) == "");  // 8 PiB: fine
  // Every sector a defect: capacity 0.
  json all_bad = with_zone(0, 2, 1, 512);
  all_bad["seek"]["boundary"] = 1;
  all_bad["defects"] = json::parse(R"([{"cylinder": 0, "head": 0, "sector": 0},
                                       {"cylinder": 0, "head": 0, "sector": 1}])");
  CHECK_THAT(error_of(all_bad), Catch::Contains("field 'defects'") &&
                                    Catch::Contains("every sector is a defect"));
  all_bad["defects"].erase(1);
  CHECK(error_of(all_bad) == "");
  // A number beyond a double: the file and the field, not the JSON library's words alone.
  std::string huge = minimal().dump();
  huge.replace(huge.find("7200"), 4, "1e400");
  CHECK_THAT(load_error(huge), Catch::Contains("profile 'test_profile_bad_tmp.json': field 'rpm'") &&
                                   Catch::Contains("1e400"));
}

TEST_CASE("a geometry that is a path to no file says so; a capacity that cannot be meant is refused",
          "[profile]") {
  CHECK_THROWS_WITH(load_model("/nonexistent"),
                    Catch::Contains("'/nonexistent'") && Catch::Contains("No such file"));
  CHECK_THROWS_WITH(load_model("./no-such-profile"), Catch::Contains("No such file"));
  // The same for the fixed model's capacity: no wrap-around past what an export holds.
  CHECK_THROWS_WITH(load_model("fixed:ms=1,capacity=-1"), Catch::Contains("[1, 2^63 - 1]"));
  CHECK_THROWS_WITH(load_model("fixed:ms=1,capacity=9223372036854775808"),
                    Catch::Contains("[1, 2^63 - 1]"));
  CHECK(load_model("fixed:ms=1,capacity=9223372036854775807")->capacity_bytes() ==
        9223372036854775807ull);
}
