// Runs a fuzz target over files, without libFuzzer: the regression check of the
// ordinary build. Each argument is a file or a directory of files (the seed corpus and
// the inputs that once crashed). A crash, a sanitizer report or an exception the
// parser does not document fails the run, as it would under libFuzzer.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void run_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  // A copy of exactly `size` bytes, so reading past the end is caught by ASan.
  std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
  std::fprintf(stderr, "input %s (%zu bytes)\n", p.c_str(), data.size());
  LLVMFuzzerTestOneInput(data.data(), data.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  std::size_t n = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::recursive_directory_iterator(arg))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) run_file(f), ++n;
    } else if (std::filesystem::is_regular_file(arg)) {
      run_file(arg), ++n;
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  // An empty corpus would make the check pass without checking anything.
  if (n == 0) {
    std::fprintf(stderr, "no inputs found in the arguments\n");
    return 1;
  }
  std::printf("%zu inputs ran without a crash\n", n);
  return 0;
}
