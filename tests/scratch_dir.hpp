// A fresh directory under /tmp, removed with its files at the end of the test, and the
// whole-file reads and writes of the tests that keep files in one.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

namespace disksched::testing {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

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
  // Writes `text` to the file `name` in it; returns the file's path.
  std::string write(const std::string& name, const std::string& text) const {
    put(*this / name, text);
    return *this / name;
  }
};

}  // namespace disksched::testing
