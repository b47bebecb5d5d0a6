// The rotational algorithms in the registry: names, aliases, parameters declared once
// (with units and ranges), canonical specs and clear errors. That none loses or
// duplicates a request, with any of its parameters, is tests/schedulers/test_no_loss.cpp.
#include <map>

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
