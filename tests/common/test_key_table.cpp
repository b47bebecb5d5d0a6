// The key table's shared parts: lookup, the list of names, and the help made from the table.
#include <string>

#include <catch2/catch.hpp>

#include "common/key_table.hpp"

using namespace disksched;

namespace {

struct Toy {
  int n = 0;
};

void set_n(Toy& t, std::string_view, std::string_view value, const KeyParsers&) {
  t.n = static_cast<int>(value.size());
}

const KeyRow<Toy> kToy[] = {
    {{"short", "N", "A few words."}, set_n},
    {{"a-key-whose-value-is-long", "NAME|PROFILE.json",
      "One sentence that is long enough to need more than one line of help text when it is "
      "wrapped in the help column at eighty characters."},
     set_n},
};

}  // namespace

TEST_CASE("key table: lookup by name and the list of names", "[common][keys]") {
  const std::span<const KeyRow<Toy>> table = kToy;
  REQUIRE(find_key(table, "short") == &kToy[0]);
  REQUIRE(find_key(table, "shor") == nullptr);
  Toy t;
  find_key(table, "a-key-whose-value-is-long")->set(t, "k", "abc", portable_key_parsers());
  REQUIRE(t.n == 3);
  REQUIRE(key_names(key_docs(table)) == "short, a-key-whose-value-is-long");
}

TEST_CASE("key table: the help wraps in its column; a long key's help starts below it",
          "[common][keys]") {
  const std::string help = key_help(key_docs(std::span<const KeyRow<Toy>>(kToy)));
  INFO(help);
  // The column starts at 28 at the latest: `short=N` is padded to it.
  REQUIRE(help.rfind("short=N" + std::string(28 - 7, ' ') + "A few words.\n", 0) == 0);
  // The long key is wider than the column: its help starts on the next line, indented.
  REQUIRE(help.find("a-key-whose-value-is-long=NAME|PROFILE.json\n" + std::string(28, ' ') +
                    "One sentence") != std::string::npos);
  std::size_t lines = 0, start = 0;
  while (start <= help.size()) {
    std::size_t end = help.find('\n', start);
    if (end == std::string::npos) end = help.size();
    const std::string line = help.substr(start, end - start);
    CHECK(line.size() <= 80);
    ++lines;
    start = end + 1;
  }
  REQUIRE(lines >= 4);  // short, the long key, and its help in more than one line
}
