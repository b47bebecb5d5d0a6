#include <catch2/catch.hpp>

#include "common/units.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

TEST_CASE("durations need a unit: ns, us, ms, s", "[units]") {
  CHECK(parse_duration_ms("50us") == Approx(0.05));
  CHECK(parse_duration_ms("0.2ms") == Approx(0.2));
  CHECK(parse_duration_ms("1s") == Approx(1000.0));
  CHECK(parse_duration_ms("250ns") == Approx(0.00025));
  CHECK(parse_duration_ms("1e3us") == Approx(1.0));
  CHECK(parse_duration_ms("0.5S") == Approx(500.0));
  CHECK(parse_duration_ms("100 ms") == Approx(100.0));
  CHECK(parse_duration_ms("0") == 0.0);
  // A bare number was milliseconds in the filter and an error in diskemu: now it is an
  // error everywhere that says how to write it.
  CHECK_THROWS_WITH(parse_duration_ms("5"), Contains("'5' has no unit") && Contains("5ms"));
  CHECK_THROWS_WITH(parse_duration_ms("ms"), Contains("not a duration"));
  CHECK_THROWS_WITH(parse_duration_ms("fastms"), Contains("not a duration"));
  CHECK_THROWS_WITH(parse_duration_ms("1 hour"), Contains("not a duration"));
  CHECK_THROWS_WITH(parse_duration_ms(""), Contains("not a duration"));
  CHECK_THROWS_WITH(parse_duration_ms("-1ms"), Contains("negative"));
  CHECK(format_duration_ms(0.25) == "0.25ms");
  CHECK(parse_duration_ms(format_duration_ms(0.25)) == 0.25);
}

TEST_CASE("sizes are bytes with binary multiples", "[units]") {
  CHECK(parse_size("8192") == 8192);
  CHECK(parse_size("512b") == 512);
  CHECK(parse_size("8k") == 8192);
  CHECK(parse_size("8K") == 8192);
  CHECK(parse_size("8KiB") == 8192);
  CHECK(parse_size("4m") == 4u << 20);
  CHECK(parse_size("1g") == 1ull << 30);
  CHECK(parse_size("2T") == 2ull << 40);
  CHECK(parse_size("0.5k") == 512);
  CHECK_THROWS_WITH(parse_size("8q"), Contains("'8q' is not a size"));
  CHECK_THROWS_WITH(parse_size("0.3k"), Contains("whole number of bytes"));
  CHECK_THROWS_WITH(parse_size("-1k"), Contains("whole number of bytes"));
}

TEST_CASE("fractions, rates and counts", "[units]") {
  CHECK(parse_fraction("0.25") == 0.25);
  CHECK(parse_fraction("25%") == 0.25);
  CHECK_THROWS_WITH(parse_fraction("1.5"), Contains("not a fraction"));
  CHECK(parse_rate_per_s("50") == 50);
  CHECK(parse_rate_per_s("50/s") == 50);
  CHECK(parse_rate_per_s("3000/min") == Approx(50));
  CHECK_THROWS_WITH(parse_rate_per_s("50/h"), Contains("not a rate"));
  CHECK(parse_count("16") == 16);
  CHECK_THROWS_WITH(parse_count("1.5"), Contains("whole number"));
  CHECK_THROWS_WITH(parse_count("-2"), Contains("whole number"));
  CHECK(parse_number("-2.5e1") == -25);
  CHECK_THROWS_WITH(parse_number("2x"), Contains("not a number"));
}
