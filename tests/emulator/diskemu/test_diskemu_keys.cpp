// the diskemu plugin's key table against its man page's PARAMETERS (every key in both) and against
// its config_help, which is made from the table.
#include <catch2/catch.hpp>

#include "emulator/diskemu/config.hpp"
#include "tests/pod_keys.hpp"

using namespace disksched;

TEST_CASE("the diskemu plugin: the key table, the man page and the help list the same keys",
          "[diskemu][keys]") {
  testing::check_keys(diskemu::diskemu_keys(), POD_PATH, diskemu::key_help_text());
}
