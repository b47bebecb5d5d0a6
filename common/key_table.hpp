// nbdkit keys declared as a table, one row a key: its name, what its value is, its help,
// and the setter that reads it (booleans, sizes and counts through KeyParsers: nbdkit's own
// parsers in nbdkit). The help text (.config_help) and the list of known keys in the
// unknown-key error are made from the table, and each component's test holds the table
// against its man page's key list.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/key_parsers.hpp"

namespace disksched {

// One key's documentation: `name=value` and a sentence or two.
struct KeyDoc {
  std::string_view name;
  std::string_view value;  // what the value is, as the help shows it: N, SIZE, BOOL, PATH, ...
  std::string_view help;
};

template <class Config>
struct KeyRow {
  KeyDoc doc;
  // Reads `value` into the config; throws naming the key, the value and what was expected.
  void (*set)(Config& c, std::string_view key, std::string_view value, const KeyParsers& p);
};

template <class Config>
const KeyRow<Config>* find_key(std::span<const KeyRow<Config>> table, std::string_view name) {
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const KeyRow<Config>& r) { return r.doc.name == name; });
  return it == table.end() ? nullptr : &*it;
}

// "key=value: expected", the form of every bad value's message.
std::string bad_value_message(std::string_view key, std::string_view value,
                              std::string_view expected);

// What a setter throws for a bad value: the component's error with that message.
template <class Error>
Error bad_value(std::string_view key, std::string_view value, std::string_view expected) {
  return Error(bad_value_message(key, value, expected));
}

// "a, b, c": the keys' names in the table's order.
std::string key_names(std::span<const KeyDoc> docs);
// `name=VALUE  help`, one key after another, the help wrapped in a column of its own.
std::string key_help(std::span<const KeyDoc> docs);

template <class Config>
std::vector<KeyDoc> key_docs(std::span<const KeyRow<Config>> table) {
  std::vector<KeyDoc> docs;
  for (const KeyRow<Config>& r : table) docs.push_back(r.doc);
  return docs;
}

}  // namespace disksched
