// What the filter's and the plugins' nbdkit callbacks share: no exception crosses into
// nbdkit's C code, and path keys read the way nbdkit's own do. Include <nbdkit-plugin.h>
// or <nbdkit-filter.h> first.
#pragma once

#if !defined(NBDKIT_PLUGIN_H) && !defined(NBDKIT_FILTER_H)
#error include <nbdkit-plugin.h> or <nbdkit-filter.h> before common/nbdkit_callback.hpp
#endif

#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

namespace disksched {

// Runs a callback's body (which returns the callback's result); an exception becomes
// nbdkit's error "WHO: what it says" and the result -1.
template <class Body>
int nbdkit_guard(const char* who, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    nbdkit_error("%s: %s", who, e.what());
    return -1;
  }
}

// A path value made absolute, relative to the directory nbdkit was started in (it may
// chdir / when it daemonizes); with `must_exist`, resolved by nbdkit_realpath. nullopt
// once nbdkit has said why it could not.
inline std::optional<std::string> nbdkit_path_value(const char* value, bool must_exist = false) {
  char* abs = must_exist ? nbdkit_realpath(value) : nbdkit_absolute_path(value);
  if (abs == nullptr) return std::nullopt;
  std::string path = abs;
  std::free(abs);
  return path;
}

}  // namespace disksched
