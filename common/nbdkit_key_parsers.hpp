// nbdkit's own parsers as KeyParsers (key_parsers.hpp), for the filter and the plugins.
// Include <nbdkit-plugin.h> or <nbdkit-filter.h> first. nbdkit reports its own error
// before ours, as its built-in keys do.
#pragma once

#if !defined(NBDKIT_PLUGIN_H) && !defined(NBDKIT_FILTER_H)
#error include <nbdkit-plugin.h> or <nbdkit-filter.h> before common/nbdkit_key_parsers.hpp
#endif

#include <string>

#include "common/key_parsers.hpp"

namespace disksched {

inline const KeyParsers& nbdkit_key_parsers() {
  static const KeyParsers p{
      [](std::string_view text, bool& out) {
        const int r = nbdkit_parse_bool(std::string(text).c_str());
        if (r < 0) return false;
        out = r != 0;
        return true;
      },
      [](std::string_view text, std::uint64_t& out) {
        const std::int64_t r = nbdkit_parse_size(std::string(text).c_str());
        if (r < 0) return false;
        out = static_cast<std::uint64_t>(r);
        return true;
      },
      [](std::string_view text, std::uint64_t& out) {
        std::uint64_t v = 0;
        if (nbdkit_parse_uint64_t("value", std::string(text).c_str(), &v) < 0) return false;
        out = v;
        return true;
      }};
  return p;
}

}  // namespace disksched
