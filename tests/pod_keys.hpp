// The keys a component's man page documents: the names of `=item B<key=>...` (or
// `=item [B<key=>]...`) under =head1 PARAMETERS, for tests that hold a key table against it.
#pragma once

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

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

}  // namespace disksched::testing
