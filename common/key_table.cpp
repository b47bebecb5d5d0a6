#include "common/key_table.hpp"

namespace disksched {

std::string bad_value_message(std::string_view key, std::string_view value,
                              std::string_view expected) {
  return std::string(key) + "=" + std::string(value) + ": " + std::string(expected);
}

std::string key_names(std::span<const KeyDoc> docs) {
  std::string out;
  for (const KeyDoc& d : docs) {
    if (!out.empty()) out += ", ";
    out += d.name;
  }
  return out;
}

namespace {

constexpr std::size_t kWidth = 80;       // the help's lines at most (but for one long word)
constexpr std::size_t kMaxColumn = 28;   // where the help column starts at the latest

// `text` in lines of at most `width` characters, each but the first after `indent` spaces.
std::string wrap(std::string_view text, std::size_t indent, std::size_t width) {
  std::string out, line;
  auto flush = [&] {
    if (!out.empty()) out += "\n" + std::string(indent, ' ');
    out += line;
    line.clear();
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(' ', pos), text.size());
    const std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) flush();
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) flush();
  return out;
}

}  // namespace

std::string key_help(std::span<const KeyDoc> docs) {
  std::size_t column = 0;
  for (const KeyDoc& d : docs) column = std::max(column, d.name.size() + 1 + d.value.size() + 1);
  column = std::min(column, kMaxColumn);
  std::string out;
  for (const KeyDoc& d : docs) {
    std::string key = std::string(d.name) + "=" + std::string(d.value);
    // A key longer than the column has its help on the next line.
    key += key.size() < column ? std::string(column - key.size(), ' ')
                               : "\n" + std::string(column, ' ');
    if (!out.empty()) out += '\n';
    out += key + wrap(d.help, column, kWidth - column);
  }
  return out;
}

}  // namespace disksched
