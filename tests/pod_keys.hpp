// The keys a component's man page documents: the names of `=item B<key=>...` (or
// `=item [B<key=>]...`) under =head1 PARAMETERS, for tests that hold a key table against it.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/key_table.hpp"

namespace disksched::testing {

inline std::set<std::string> pod_keys(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  static const std::regex item(R"(^=item \[?B<([a-z][a-z0-9-]*)=)");
  std::set<std::string> keys;
  bool in_parameters = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("=head1 ", 0) == 0) in_parameters = line == "=head1 PARAMETERS";
    std::smatch m;
    if (in_parameters && std::regex_search(line, m, item)) keys.insert(m[1]);
  }
  return keys;
}

// A key table against its man page (every key in both) and against the help made from it
// (it names every key at the start of a line, in lines of at most 80 characters).
template <class Config>
void check_keys(std::span<const KeyRow<Config>> keys, const std::string& pod_path,
                const std::string& help) {
  std::set<std::string> table;
  for (const auto& row : keys) table.insert(std::string(row.doc.name));
  const std::set<std::string> pod = pod_keys(pod_path);
  REQUIRE_FALSE(pod.empty());  // the man page was read
  for (const std::string& k : table) {
    INFO("key " << k << " is in the table but not in " << pod_path);
    CHECK(pod.count(k) == 1);
  }
  for (const std::string& k : pod) {
    INFO("key " << k << " is in " << pod_path << " but not in the table");
    CHECK(table.count(k) == 1);
  }
  for (const std::string& k : table) {
    INFO("the help does not start a line with " << k << "=");
    CHECK((help.rfind(k + "=", 0) == 0 || help.find("\n" + k + "=") != std::string::npos));
  }
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    // The built-in models' list is one line of names.
    if (line.rfind("Built-in models:", 0) != 0) CHECK(line.size() <= 80);
  }
}

}  // namespace disksched::testing
