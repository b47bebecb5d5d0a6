#include <catch2/catch.hpp>

#include "common/text.hpp"

using namespace disksched;

TEST_CASE("text: trim, lower, split, iequals", "[text]") {
  CHECK(trim("  a b \t\n") == "a b");
  CHECK(trim("   ").empty());
  CHECK(lower("AbC-1") == "abc-1");
  CHECK(split("a,,b", ',') == std::vector<std::string_view>{"a", "", "b"});
  CHECK(split("", ',') == std::vector<std::string_view>{""});
  CHECK(iequals("SATF", "satf"));
  CHECK_FALSE(iequals("satf", "sat"));
}
