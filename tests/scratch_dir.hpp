// A fresh directory under /tmp, removed with its files at the end of the test, and the
// whole-file reads and writes the tests that save into one use.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

namespace disksched::testing {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    char tmpl[] = "/tmp/disksched-scratch-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace disksched::testing
