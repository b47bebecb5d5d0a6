// The rotational algorithms in the registry: names, aliases, parameters declared once
// (with units and ranges), canonical specs, clear errors, and that none loses or
// duplicates a request under any of its parameter variants.
#include <map>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"
#include "tests/schedulers/rotational/requests.hpp"

using namespace disksched;
using disksched::testing::make_request;

namespace {

const std::vector<std::string> kRotational = {"satf",   "asatf", "satfuf", "satfdf", "satfgdf",
                                              "bsatf",  "lbsatf", "oat",   "gstf",   "wstf"};

}  // namespace

TEST_CASE("every rotational algorithm is registered with its seed, aliases and parameters",
          "[rotational][registry]") {
  const auto& reg = Registry::builtin();
  for (const auto& name : kRotational) {
    INFO(name);
    const AlgorithmInfo* a = reg.find(name);
    REQUIRE(a != nullptr);
    CHECK(a->name == name);
    CHECK(a->needs_rotation);
    CHECK_FALSE(a->description.empty());
    CHECK((a->source.find("JW") != std::string::npos ||
           a->source.find("Huang") != std::string::npos));
    for (const auto& p : a->params) {
      INFO(p.name);
      CHECK_FALSE(p.description.empty());
      if (p.choices.empty()) {
        CHECK(p.min <= p.default_value);
        CHECK(p.default_value <= p.max);
      }
    }
  }
  CHECK(reg.find("sptf")->name == "satf");
  CHECK(reg.find("STF")->name == "satf");
  CHECK(reg.find("asptf")->name == "asatf");
}

TEST_CASE("specs are canonical and round-trip", "[rotational][registry]") {
  auto m = load_model("hp97560");
  const std::map<std::string, std::string> cases = {
      {"sptf", "satf:search=cells"},
      {"asatf:w=30", "asatf:w=30,form=jw,search=cells"},
      {"ASPTF:form=hong,w=5", "asatf:w=5,form=hong,search=cells"},
      {"satfuf:n=3", "satfuf:n=3,age=500ms"},
      {"satfdf:d=4,age=1s", "satfdf:n=1,age=1000ms,d=4"},
      {"satfgdf", "satfgdf:n=1,age=500ms,d=5,guide=area"},
      {"bsatf:mode=on-starvation", "bsatf:mode=on-starvation,age=500ms"},
      {"lbsatf", "lbsatf:mode=continuous,age=500ms"},
      {"oat:mode=sliding", "oat:batch=6,mode=sliding"},
      {"gstf:group=25,admit=frozen", "gstf:group=25,admit=frozen"},
      {"wstf:tmax=0.5s", "wstf:tmax=500ms"},
  };
  for (const auto& [in, canonical] : cases) {
    INFO(in);
    auto s = make_scheduler(in, *m);
    CHECK(s->spec() == canonical);
    CHECK(make_scheduler(s->spec(), *m)->spec() == canonical);
  }
}

TEST_CASE("bad specs are refused with what was wrong and what is valid", "[rotational][registry]") {
  auto m = load_model("hp97560");
  CHECK_THROWS_WITH(make_scheduler("asatf:weight=3", *m),
                    Catch::Contains("weight") && Catch::Contains("w in [0, 1000000]"));
  CHECK_THROWS_WITH(make_scheduler("asatf:w=-1", *m), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(make_scheduler("asatf:form=linear", *m), Catch::Contains("jw|hong"));
  CHECK_THROWS_WITH(make_scheduler("satfuf:n=1.5", *m), Catch::Contains("n"));
  CHECK_THROWS_AS(make_scheduler("oat:batch=9", *m), SpecError);
  CHECK_THROWS_AS(make_scheduler("gstf:group=0", *m), SpecError);
  CHECK_THROWS_WITH(make_scheduler("satfdf:d=2x", *m), Catch::Contains("d"));
  // A device without rotational positions cannot run them.
  auto fixed = load_model("fixed:ms=5");
  for (const auto& name : kRotational)
    CHECK_THROWS_WITH(make_scheduler(name, *fixed), Catch::Contains("rotational"));
}

TEST_CASE("no rotational scheduler loses or duplicates a request, whatever its parameters",
          "[rotational][registry]") {
  // Random adds, removes, picks and a drain part-way; the multiset held must match.
  auto m = load_model("hp97560");
  const std::vector<std::string> specs = {
      "satf", "satf:search=scan", "asatf:w=30", "asatf:w=5,form=hong", "asatf:w=3000",
      "satfuf:age=20ms", "satfuf:age=20ms,n=4", "satfdf:age=20ms,d=1", "satfdf:age=0ms,n=3,d=0",
      "satfgdf:age=20ms,d=2", "satfgdf:age=0ms,n=2,d=0", "bsatf", "bsatf:mode=on-starvation,age=30ms",
      "lbsatf", "lbsatf:mode=on-starvation,age=30ms", "oat:batch=4", "oat:batch=5,mode=sliding",
      "oat:batch=3,mode=greedy", "gstf:group=10", "gstf:group=500,admit=frozen", "wstf:tmax=50ms"};
  for (const auto& spec : specs) {
    INFO(spec);
    auto s = make_scheduler(spec, *m);
    std::mt19937_64 rng(std::hash<std::string>{}(spec));
    std::set<std::uint64_t> held;
    std::uint64_t next = 1;
    HeadState head = m->initial_state();
    Millis now = 0;
    for (int op = 0; op < 3000; ++op) {
      now += 2.0;
      const auto dice = rng() % 100;
      if (dice < 50 || held.empty()) {
        s->add(make_request(*m, next, rng() % 2600000, now, 1 + rng() % 32,
                            rng() % 4 == 0 ? Op::Write : Op::Read));
        held.insert(next++);
      } else if (dice < 62) {
        const std::uint64_t id = rng() % 3 == 0 ? next + 7 : *std::next(held.begin(), static_cast<long>(rng() % held.size()));
        REQUIRE(s->remove(id) == (held.erase(id) == 1));
      } else if (dice < 63) {
        auto all = s->drain();
        std::multiset<std::uint64_t> got;
        for (const auto& r : all) got.insert(r.id);
        REQUIRE(std::set<std::uint64_t>(got.begin(), got.end()) == held);
        REQUIRE(got.size() == held.size());
        for (const auto& r : all) s->add(r);
      } else {
        auto r = s->pick(now, head);
        REQUIRE(r.has_value());
        REQUIRE(held.erase(r->id) == 1);
        head = m->service(head, r->op, r->offset, r->length).end;
        now = std::max(now, head.time_ms);
      }
      REQUIRE(s->size() == held.size());
    }
    while (auto r = s->pick(now, head)) REQUIRE(held.erase(r->id) == 1);
    CHECK(held.empty());
  }
}
