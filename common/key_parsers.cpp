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

bool portable_size(std::string_view text, std::uint64_t& out) {
  try {
    out = parse_size(text);
    return true;
  } catch (const UnitError&) {
    return false;
  }
}

bool portable_uint64(std::string_view text, std::uint64_t& out) {
  try {
    out = parse_count(text);
    return true;
  } catch (const UnitError&) {
    return false;
  }
}

}  // namespace

const KeyParsers& portable_key_parsers() {
  static const KeyParsers p{portable_bool, portable_size, portable_uint64};
  return p;
}

}  // namespace disksched
