#include "common/key_parsers.hpp"

#include <array>

#include "common/text.hpp"
#include "common/units.hpp"

namespace disksched {
namespace {

bool portable_bool(std::string_view text, bool& out) {
  static constexpr std::array<std::string_view, 6> yes = {"1", "true", "t", "yes", "y", "on"};
  static constexpr std::array<std::string_view, 6> no = {"0", "false", "f", "no", "n", "off"};
  for (auto w : yes)
    if (iequals(text, w)) return out = true, true;
  for (auto w : no)
    if (iequals(text, w)) return out = false, true;
  return false;
}

// A common/units.hpp parser that reports failure instead of throwing.
template <std::uint64_t (*Parse)(std::string_view)>
bool without_throwing(std::string_view text, std::uint64_t& out) {
  try {
    out = Parse(text);
    return true;
  } catch (const UnitError&) {
    return false;
  }
}

}  // namespace

const KeyParsers& portable_key_parsers() {
  static const KeyParsers p{portable_bool, without_throwing<parse_size>,
                           without_throwing<parse_count>};
  return p;
}

}  // namespace disksched
