// The registry: spec strings, errors that name what was wrong and what is valid,
// aliases, units, and that every registered algorithm builds from its own spec.
#include <set>

#include "predictor/lbn_model.hpp"
#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;

namespace {

std::string error_of(const std::string& spec, const DeviceModel& m) {
  try {
    make_scheduler(spec, m);
  } catch (const SpecError& e) {
    return e.what();
  }
  FAIL("'" << spec << "' was accepted");
  return {};
}

const DeviceModel& model_for(const AlgorithmInfo& a, const DeviceModel& disk,
                             const DeviceModel& mems) {
  return a.needs_mems ? mems : disk;
}

}  // namespace

TEST_CASE("registry: an unknown scheduler is named and the valid ones listed", "[registry]") {
  auto m = hp97560();
  auto e = error_of("nosuch:x=1", *m);
  CHECK_THAT(e, Catch::Contains("'nosuch'"));
  for (const char* n : {"fcfs", "sstf", "look", "clook", "vr", "sswt", "priority", "zsptf"})
    CHECK_THAT(e, Catch::Contains(n));
}

TEST_CASE("registry: an unknown key is named with the valid keys", "[registry]") {
  auto m = hp97560();
  auto e = error_of("sswt:thresh=3", *m);
  CHECK_THAT(e, Catch::Contains("'thresh'") && Catch::Contains("threshold"));
  e = error_of("fcfs:depth=2", *m);
  CHECK_THAT(e, Catch::Contains("'depth'") && Catch::Contains("takes no parameters"));
  e = error_of("vr:0.2", *m);
  CHECK_THAT(e, Catch::Contains("key=value"));
  e = error_of("vr:r=0.1,r=0.3", *m);
  CHECK_THAT(e, Catch::Contains("twice"));
}

TEST_CASE("registry: a value out of range names it and the range", "[registry]") {
  auto m = hp97560();
  // The spec, the value as the error names it, and the range or rule it breaks.
  const struct {
    const char* spec;
    const char* value;
    const char* rule;
  } cases[] = {
      {"vr:r=2", "r=2", "[0, 1]"},
      {"sswt:threshold=-1", "threshold=-1", "out of range"},
      {"sswt:threshold=lots", "'lots'", "not a number"},
      {"sswt:threshold=600.5", "threshold=600.5", "whole number"},
      {"sstf:by=sector", "'sector'", "cyl|lbn"},
      {"priority:variant=3", "'3'", "1|2"},
  };
  for (const auto& c : cases)
    CHECK_THAT(error_of(c.spec, *m), Catch::Contains(c.value) && Catch::Contains(c.rule));
}

TEST_CASE("registry: time parameters take ns, us, ms and s", "[registry][units]") {
  auto m = hp97560();
  for (const char* v : {"500000000ns", "500ms", "0.5s", "500000us", "500 ms", "0.5S"}) {
    INFO(v);
    auto [a, p] = Registry::builtin().parse(std::string("priority:variant=2,timeout=") + v);
    CHECK(a->name == "priority");
    CHECK(p.number("timeout") == Approx(500.0));
    CHECK(p.choice("variant") == "2");
  }
  // A bare number was milliseconds here and an error in diskemu's keys: one rule now.
  CHECK_THAT(error_of("priority:timeout=500", *m),
             Catch::Contains("timeout=500") && Catch::Contains("write 500ms"));
  auto e = error_of("priority:timeout=5kg", *m);
  CHECK_THAT(e, Catch::Contains("'kg'") && Catch::Contains("ms"));
  e = error_of("sswt:threshold=5s", *m);  // not a time
  CHECK_THAT(e, Catch::Contains("'s'") && Catch::Contains("dispatches"));
  CHECK(make("sswt:threshold=5dispatches", *m)->spec() == "sswt:threshold=5");
}

TEST_CASE("registry: aliases and case are accepted; specs use the canonical name",
          "[registry][aliases]") {
  auto m = hp97560();
  FakeMems mems;
  CHECK(make("SCAN", *m)->spec() == "scan:by=cyl");
  CHECK(make("Elevator:by=LBN", *m)->spec() == "look:by=lbn");
  CHECK(make("c-scan", *m)->spec() == "cscan:by=cyl");
  CHECK(make("fifo", *m)->spec() == "fcfs");
  CHECK(make("V(R):r=0.5", *m)->spec() == "vr:r=0.5");
  CHECK(make("gp:variant=2", *m)->spec().rfind("priority:variant=2,", 0) == 0);
  CHECK(make(" sswt : threshold = 7 ", *m)->spec() == "sswt:threshold=7");
  const auto* a = Registry::builtin().find("c-look");
  REQUIRE(a != nullptr);
  CHECK(a->name == "clook");
}

TEST_CASE("registry: zone sizes are written WxH (Hong sec. 7.2)", "[registry][zones]") {
  FakeMems mems;
  CHECK(make("zsptf:zone=60x600", mems)->spec() ==
        "zsptf:zone=60x600,pyramid=off,merge4_below=80,merge16_below=20");
  CHECK(make("ztsptf:zone=240X2400", mems)->spec().rfind("ztsptf:zone=240x2400,", 0) == 0);
  auto [a, p] = Registry::builtin().parse("zfcfs:zone=120 x 1200");
  CHECK(p.pair("zone") == std::pair<double, double>{120, 1200});
  auto e = error_of("zsptf:zone=120", mems);
  CHECK_THAT(e, Catch::Contains("'120'") && Catch::Contains("AxB"));
  e = error_of("zsptf:zone=0x1200", mems);
  CHECK_THAT(e, Catch::Contains("zone=0x1200") && Catch::Contains("bits"));
  e = error_of("zsptf:zone=ax1200", mems);
  CHECK_THAT(e, Catch::Contains("zone=ax1200"));
}

TEST_CASE("registry: add refuses a taken name or alias and an invalid default", "[registry]") {
  Registry r;
  AlgorithmInfo a;
  a.name = "one";
  a.aliases = {"uno"};
  a.factory = [](const Params&, const DeviceModel&) { return std::unique_ptr<Scheduler>(); };
  r.add(a);
  AlgorithmInfo b = a;
  b.name = "two";
  b.aliases = {"UNO"};
  CHECK_THROWS_WITH(r.add(b), Catch::Contains("uno") || Catch::Contains("UNO"));
  AlgorithmInfo c = a;
  c.name = "three";
  c.aliases = {};
  ParamSpec p;
  p.name = "k";
  p.min = 1;
  p.max = 2;
  p.default_value = 5;
  c.params = {p};
  CHECK_THROWS_WITH(r.add(c), Catch::Contains("'k'"));
  CHECK(r.algorithms().size() == 1);
}

TEST_CASE("registry: every algorithm builds from its defaults and from its own spec",
          "[registry]") {
  auto disk = hp97560();
  auto mems = mems_model_or_fake();
  const auto& reg = Registry::builtin();
  std::set<std::string> names;
  for (const auto& a : reg.algorithms()) {
    INFO(a.name);
    CHECK(names.insert(a.name).second);
    CHECK_FALSE(a.description.empty());
    CHECK_FALSE(a.source.empty());
    for (const auto& p : a.params) {
      INFO(p.name);
      CHECK_FALSE(p.description.empty());
    }
    const DeviceModel& m = model_for(a, *disk, *mems);
    auto s = reg.make(a.name, m);
    const std::string spec = s->spec();
    CHECK(spec.rfind(a.name, 0) == 0);
    CHECK(reg.make(spec, m)->spec() == spec);
    // The default spec written out by the registry is the one the scheduler reports.
    CHECK(format_spec(a, reg.parse(a.name).second) == spec);
  }
  for (const char* n : {"fcfs", "sstf", "look", "clook", "vr", "sswt", "priority", "zsptf",
                        "ztsptf", "zfcfs"})
    CHECK(names.count(n) == 1);
}

TEST_CASE("registry: a paper's name for a parameter setting is a preset, not an algorithm",
          "[registry]") {
  const auto& reg = Registry::builtin();
  for (const auto& a : reg.algorithms()) CHECK(a.name != "pzsptf");
  auto [a, p] = reg.parse("PZSPTF:zone=20x1200");
  CHECK(a->name == "zsptf");
  CHECK(p.choice("pyramid") == "on");
  CHECK(p.pair("zone") == std::pair<double, double>{20, 1200});
  CHECK(reg.parse("pzsptf:pyramid=off").second.choice("pyramid") == "off");
  CHECK(reg.parse("zsptf").second.choice("pyramid") == "off");
}

TEST_CASE("registry: test oracles and ablations are accepted but not offered", "[registry]") {
  auto m = hp97560();
  const AlgorithmInfo* satf = Registry::builtin().find("satf");
  REQUIRE(satf != nullptr);
  bool hidden_search = false;
  for (const auto& p : satf->params) hidden_search |= p.name == "search" && p.hidden;
  CHECK(hidden_search);
  CHECK(make("satf:search=scan", *m)->spec().find("search=scan") != std::string::npos);
  CHECK_THAT(error_of("satf:nosuch=1", *m), !Catch::Contains("search"));
  CHECK_THAT(error_of("satfgdf:nosuch=1", *m), !Catch::Contains("guide"));
}

TEST_CASE("registry: check() refuses what make() refuses, and gives the spec make() builds",
          "[registry]") {
  auto disk = hp97560();
  auto mems = mems_model_or_fake();
  const LbnModel lbn(1ull << 30);
  const auto& reg = Registry::builtin();
  struct Case {
    const char* spec;
    const DeviceModel* model;
  };
  const Case refused[] = {
      {"nosuch", disk.get()},
      {"sstf:nosuch=1", disk.get()},
      {"asatf:w=30", &lbn},                  // needs rotation
      {"zsptf", disk.get()},                 // needs the MEMS model
      {"zsptf:pyramid=on,merge4_below=5,merge16_below=10", mems.get()},
      {"priority:queues=3,timeout=0", disk.get()},
      {"qos:min-depth=8,max-depth=4", disk.get()},
      {"qos:order=satf", &lbn},              // the inner order needs rotation
  };
  for (const Case& c : refused) {
    INFO(c.spec);
    const std::string made = error_of(c.spec, *c.model);
    std::string checked;
    try {
      reg.check(c.spec, *c.model);
    } catch (const SpecError& e) {
      checked = e.what();
    }
    CHECK(checked == made);
  }
  for (const char* spec : {"fcfs", "asatf:w=10", "pzsptf", "qos:order=satf", "priority:queues=3"}) {
    INFO(spec);
    const AlgorithmInfo* a = reg.find(split_spec_name(spec).first);
    REQUIRE(a != nullptr);
    const DeviceModel& m = model_for(*a, *disk, *mems);
    const SchedulerSpec checked = reg.check(spec, m);
    CHECK(checked.algorithm == a);
    auto s = reg.make(checked, m);
    CHECK(checked.text() == s->spec());
    CHECK(reg.make(spec, m)->spec() == s->spec());
    // The scheduler says what its entry says (the dispatch core asks it).
    CHECK(s->needs_rotation() == a->needs_rotation);
  }
}

TEST_CASE("registry: the spec check() writes out is the built scheduler's, for any value",
          "[registry]") {
  // One parameter away from the defaults at a time: each choice, and a number in range.
  auto disk = hp97560();
  auto mems = mems_model_or_fake();
  const auto& reg = Registry::builtin();
  auto in_range = [](const ParamSpec& p, double v) { return v >= p.min && v <= p.max; };
  std::size_t compared = 0;
  for (const auto& a : reg.algorithms()) {
    const DeviceModel& m = model_for(a, *disk, *mems);
    for (const auto& p : a.params) {
      std::vector<Params> variants;
      for (const auto& c : p.choices) {
        Params v = spec_defaults(a.params);
        v.choices_[p.name] = c;
        variants.push_back(v);
      }
      if (p.choices.empty()) {
        for (double x : {3.0, p.min, p.max}) {
          if (!in_range(p, x) || x == p.default_value) continue;
          Params v = spec_defaults(a.params);
          if (p.pair)
            v.pairs_[p.name] = {x, x};
          else
            v.numbers_[p.name] = x;
          variants.push_back(v);
          break;
        }
      }
      for (const Params& v : variants) {
        const std::string spec = format_spec(a, v);
        INFO(spec);
        std::string refused;
        try {
          const SchedulerSpec checked = reg.check(spec, m);
          CHECK(checked.text() == reg.make(spec, m)->spec());
          ++compared;
        } catch (const SpecError& e) {
          refused = e.what();
        }
        if (!refused.empty()) CHECK(error_of(spec, m) == refused);
      }
    }
  }
  CHECK(compared > 50);
}
