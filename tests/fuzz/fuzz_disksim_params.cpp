// Fuzz target: DiskSim 4.0 parameter files (libparam syntax), as `disksched model import`
// reads them. First the input alone with `source` refused; then as a chain of files that
// source one another: the input is cut at lines "%%" into up to four files a, b, c, d in
// a directory of its own (every '/' made '_', so `source` stays inside it), and a is read.
// Documented failure: ParamError. Anything else is a bug.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "predictor/import/disksim_params.hpp"

namespace {

constexpr std::array<const char*, 4> kNames = {"a", "b", "c", "d"};

// A directory of its own for one input's files, removed when the input is done (also
// when it is refused), so that no run leaves files behind.
struct ChainDir {
  std::string path = (std::filesystem::temp_directory_path() / "fuzz-disksim-XXXXXX").string();
  ChainDir() {
    if (::mkdtemp(path.data()) == nullptr) std::abort();
  }
  ~ChainDir() { std::filesystem::remove_all(path); }
};

void parse_chain(std::string_view input) {
  const ChainDir chain;
  const std::string& dir = chain.path;
  std::size_t at = 0;
  for (std::size_t k = 0; k < kNames.size(); ++k) {
    const std::string path = dir + "/" + kNames[k];
    if (at > input.size()) continue;  // a file the input does not give: `source` finds none
    std::size_t cut = input.find("\n%%\n", at);
    if (k + 1 == kNames.size() || cut == std::string_view::npos) cut = input.size();
    std::string text(input.substr(at, cut - at));
    for (char& c : text)
      if (c == '/') c = '_';
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    at = cut + 4;
  }
  (void)disksched::disksim::parse_file(dir + "/a");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    (void)disksched::disksim::parse_text(input, "fuzz.parv", "");
  } catch (const disksched::disksim::ParamError&) {
  }
  try {
    parse_chain(input);
  } catch (const disksched::disksim::ParamError&) {
  }
  return 0;
}
