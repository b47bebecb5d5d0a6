#include <catch2/catch.hpp>

#include "common/spec.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

std::vector<SpecParam> params() {
  SpecParam zone = number_param("zone", "bits", "zone", 10, 1, 100);
  zone.pair = true;
  zone.default_value2 = 20;
  SpecParam oracle = choice_param("search", "test oracle", {"fast", "scan"}, "fast");
  oracle.hidden = true;
  return {number_param("age", "ms", "wait", 500, 0, 1e6),
          number_param("size", "bytes", "request size", 8192, 1, 1 << 30),
          number_param("reads", "fraction", "reads", 1, 0, 1),
          count_param("n", "requests", "clients", 4, 1, 100),
          choice_param("mode", "mode", {"on", "off"}, "on"), zone, oracle};
}

std::string error_of(std::string_view args) {
  SpecValues v = spec_defaults(params());
  try {
    parse_spec_args("thing", params(), args, v);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("spec: name and arguments", "[spec]") {
  CHECK(split_spec_name(" asatf : w=30 ") == std::pair<std::string, std::string>{"asatf", "w=30"});
  CHECK(split_spec_name("fcfs") == std::pair<std::string, std::string>{"fcfs", ""});
}

TEST_CASE("spec: values read in their unit", "[spec][units]") {
  SpecValues v = spec_defaults(params());
  parse_spec_args("thing", params(), "age=0.5s, size=4k,reads=25%,n=7requests,mode=OFF,zone=3x4",
                  v);
  CHECK(v.number("age") == 500);
  CHECK(v.number("size") == 4096);
  CHECK(v.number("reads") == 0.25);
  CHECK(v.number("n") == 7);
  CHECK(v.choice("mode") == "off");
  CHECK(v.pair("zone") == std::pair<double, double>{3, 4});
  CHECK(format_spec("thing", params(), v) ==
        "thing:age=500ms,size=4096,reads=0.25,n=7,mode=off,zone=3x4,search=fast");
}

TEST_CASE("spec: errors name the key and what is valid", "[spec]") {
  CHECK_THAT(error_of("age=500"), Contains("age=500") && Contains("write 500ms"));
  CHECK_THAT(error_of("age=5kg"), Contains("'kg'") && Contains("duration"));
  CHECK_THAT(error_of("size=8q"), Contains("size=8q"));
  CHECK_THAT(error_of("reads=1.5"), Contains("reads=1.5") && Contains("out of range"));
  CHECK_THAT(error_of("n=1.5"), Contains("whole number"));
  CHECK_THAT(error_of("n=5s"), Contains("'s'") && Contains("requests"));
  CHECK_THAT(error_of("mode=maybe"), Contains("'maybe'") && Contains("on|off"));
  CHECK_THAT(error_of("zone=3"), Contains("AxB"));
  CHECK_THAT(error_of("age"), Contains("has no value") && Contains("key=value"));
  CHECK_THAT(error_of("age=1ms,age=2ms"), Contains("given twice"));
  CHECK_THAT(error_of("nosuch=1"), Contains("unknown parameter 'nosuch'") && Contains("age in"));
}

TEST_CASE("spec: hidden parameters are accepted but not listed", "[spec]") {
  CHECK_THAT(valid_params("thing", params()), !Contains("search"));
  SpecValues v = spec_defaults(params());
  parse_spec_args("thing", params(), "search=scan", v);
  CHECK(v.choice("search") == "scan");
  CHECK_THAT(format_spec("thing", params(), v), Contains("search=scan"));
}
