// Text helpers shared by every parser in the project: one trim, one lower, one split.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace disksched {

// `s` without leading and trailing white space.
std::string_view trim(std::string_view s);
// `s` in ASCII lower case.
std::string lower(std::string_view s);
// `s` cut at every `sep`: "a,,b" gives {"a", "", "b"}; "" gives {""}.
std::vector<std::string_view> split(std::string_view s, char sep);
// Equal ignoring ASCII case.
bool iequals(std::string_view a, std::string_view b);

}  // namespace disksched
