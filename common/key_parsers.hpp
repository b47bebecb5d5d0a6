// How the filter's and the plugins' nbdkit keys read booleans, sizes and counts. In
// nbdkit these are nbdkit's own parsers (nbdkit_key_parsers.hpp), so `sched-refine=true`,
// `direct=on` and `buffer-size=1M` read as in every nbdkit key; unit tests, which run
// without nbdkit, use portable_key_parsers(), which follow the same rules. Durations
// (nbdkit 1.32 has no parser for them) and real numbers come from common/units.hpp.
#pragma once

#include <cstdint>
#include <string_view>

namespace disksched {

struct KeyParsers {
  bool (*parse_bool)(std::string_view text, bool& out);
  bool (*parse_size)(std::string_view text, std::uint64_t& out);
  bool (*parse_uint64)(std::string_view text, std::uint64_t& out);
};

// nbdkit's rules without nbdkit: booleans 1/true/t/yes/y/on and 0/false/f/no/n/off (any
// case), sizes as common/units.hpp parse_size, counts as parse_count.
const KeyParsers& portable_key_parsers();

// What a boolean key accepts, for error messages.
inline constexpr std::string_view kBooleanHelp = "a boolean (true/false, on/off, yes/no, 1/0)";

}  // namespace disksched
