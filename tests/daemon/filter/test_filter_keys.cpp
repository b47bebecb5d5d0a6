// the disksched filter's key table against its man page's PARAMETERS (every key in both) and against
// its config_help, which is made from the table.
#include <catch2/catch.hpp>

#include "daemon/filter/filter_config.hpp"
#include "tests/pod_keys.hpp"

using namespace disksched;

TEST_CASE("the disksched filter: the key table, the man page and the help list the same keys",
          "[filter][keys]") {
  testing::check_keys(filter_keys(), POD_PATH, filter_config_help());
}
