// CSV, read and written one way: the latency log, the trace readers, sweeps and claims.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace disksched {

// One line's fields, RFC 4180 quoting ("a ""b""",c). White space around an unquoted
// field and a trailing \r are dropped. "" gives one empty field.
std::vector<std::string> csv_fields(std::string_view line);
// `s` as a field: quoted only when it holds a comma, a quote or a newline.
std::string csv_field(std::string_view s);
// `s` quoted always.
std::string csv_quoted(std::string_view s);

}  // namespace disksched
