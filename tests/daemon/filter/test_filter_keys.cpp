// the disksched filter's key table against its man page and its help: every key in the table is
// documented in the POD's PARAMETERS and every key there is in the table; the help text
// made from the table names every key.
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "daemon/filter/filter_config.hpp"
#include "tests/pod_keys.hpp"

using namespace disksched;

TEST_CASE("the disksched filter: the key table and the man page list the same keys", "[filter][keys]") {
  std::set<std::string> table;
  for (const auto& row : filter_keys()) table.insert(std::string(row.doc.name));
  const std::set<std::string> pod = testing::pod_keys(POD_PATH);
  for (const std::string& k : table) {
    INFO("key " << k << " is in the table but not in " << POD_PATH);
    CHECK(pod.count(k) == 1);
  }
  for (const std::string& k : pod) {
    INFO("key " << k << " is in " << POD_PATH << " but not in the table");
    CHECK(table.count(k) == 1);
  }
  REQUIRE_FALSE(pod.empty());  // the man page was read
}

TEST_CASE("the disksched filter: the help names every key, in lines of at most 80 characters", "[filter][keys]") {
  const std::string help = std::string(filter_config_help());
  for (const auto& row : filter_keys()) {
    INFO(row.doc.name);
    const std::string key = std::string(row.doc.name) + "=";
    CHECK((help.find("\n" + key) != std::string::npos || help.rfind(key, 0) == 0));
  }
  std::size_t start = 0;
  while (start < help.size()) {
    std::size_t end = help.find('\n', start);
    if (end == std::string::npos) end = help.size();
    const std::string line = help.substr(start, end - start);
    INFO(line);
    // The built-in models' list is one line of names.
    if (line.rfind("Built-in models:", 0) != 0) CHECK(line.size() <= 80);
    start = end + 1;
  }
}
