// the uring plugin's key table against its man page's PARAMETERS (every key in both) and against
// its config_help, which is made from the table.
#include <catch2/catch.hpp>

#include "daemon/uring/uring_config.hpp"
#include "tests/pod_keys.hpp"

using namespace disksched;

TEST_CASE("the uring plugin: the key table, the man page and the help list the same keys",
          "[uring][keys]") {
  testing::check_keys(uring::uring_keys(), POD_PATH, uring::uring_config_help_text());
}
