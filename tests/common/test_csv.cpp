#include <catch2/catch.hpp>

#include "common/csv.hpp"

using namespace disksched;
using Fields = std::vector<std::string>;

TEST_CASE("csv: fields with RFC 4180 quoting", "[csv]") {
  CHECK(csv_fields("a,b,,c") == Fields{"a", "b", "", "c"});
  CHECK(csv_fields("") == Fields{""});
  CHECK(csv_fields(" 1 , 2\r") == Fields{"1", "2"});
  CHECK(csv_fields(R"("asatf:w=30,form=jw",x)") == Fields{"asatf:w=30,form=jw", "x"});
  CHECK(csv_fields(R"("say ""hi""", " kept ")") == Fields{"say \"hi\"", " kept "});
}

TEST_CASE("csv: a written field reads back", "[csv]") {
  for (std::string s : {"plain", "a,b", "q\"uote", ""}) {
    INFO(s);
    CHECK(csv_fields(csv_field(s) + "," + csv_quoted(s)) == Fields{s, s});
  }
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_quoted("plain") == "\"plain\"");
}
