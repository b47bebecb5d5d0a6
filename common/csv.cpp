#include "common/csv.hpp"

#include "common/text.hpp"

namespace disksched {

std::vector<std::string> csv_fields(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, was_quoted = false;
  auto finish = [&] {
    out.push_back(was_quoted ? std::move(cur) : std::string(trim(cur)));
    cur.clear();
    was_quoted = false;
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      if (trim(cur).empty()) cur.clear();  // white space before the opening quote
      quoted = was_quoted = true;
    } else if (c == ',') {
      finish();
    } else {
      cur += c;
    }
  }
  finish();
  return out;
}

std::string csv_quoted(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  return csv_quoted(s);
}

}  // namespace disksched
