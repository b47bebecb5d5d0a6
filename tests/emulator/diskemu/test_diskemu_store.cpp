// The emulated device's data: sparse memory and file, zeros where never written.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "emulator/diskemu/store.hpp"

using namespace disksched::diskemu;

namespace {

std::vector<char> pattern(std::size_t n, char seed) {
  std::vector<char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>(seed + i * 7);
  return v;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/diskemu-store.XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

void exercise(Store& s) {
  const std::uint32_t P = SparseMemoryStore::page_bytes;
  std::vector<char> buf(3 * P);
  s.read(buf.data(), buf.size(), 5 * P);
  CHECK(std::all_of(buf.begin(), buf.end(), [](char c) { return c == 0; }));
  // A write straddling two pages, at an odd offset.
  auto w = pattern(P + 1000, 3);
  s.write(w.data(), w.size(), 7 * P - 500);
  std::vector<char> r(w.size());
  s.read(r.data(), r.size(), 7 * P - 500);
  CHECK(r == w);
  // Bytes around it are still zero.
  char edge[2];
  s.read(edge, 1, 7 * P - 501);
  s.read(edge + 1, 1, 7 * P - 500 + w.size());
  CHECK(edge[0] == 0);
  CHECK(edge[1] == 0);
  // Zero part of it.
  s.zero(100, 7 * P);
  s.read(r.data(), r.size(), 7 * P - 500);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const bool zeroed = i >= 500 && i < 600;
    REQUIRE(r[i] == (zeroed ? 0 : w[i]));
  }
  // The last byte of the device.
  char last = 'z';
  s.write(&last, 1, s.size() - 1);
  char back = 0;
  s.read(&back, 1, s.size() - 1);
  CHECK(back == 'z');
}

}  // namespace

TEST_CASE("sparse memory store", "[diskemu][store]") {
  SparseMemoryStore s(1ull << 30);
  exercise(s);
  const std::size_t pages = s.pages_allocated();
  CHECK(pages == 4);   // three for the straddling write (pages 6-8), one for the last byte
  // Zeroing a whole page frees it.
  s.zero(SparseMemoryStore::page_bytes, 7ull * SparseMemoryStore::page_bytes);
  CHECK(s.pages_allocated() == pages - 1);
  CHECK_FALSE(s.persistent());
}

TEST_CASE("file store: sparse, persistent, refuses what it cannot use", "[diskemu][store]") {
  TempDir dir;
  const std::string path = dir.path / "disk.img";
  const std::uint64_t size = 64ull << 20;
  {
    FileStore s(path, size);
    exercise(s);
    s.sync();
    CHECK(s.persistent());
  }
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK(static_cast<std::uint64_t>(st.st_size) == size);
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 < size / 4);   // still sparse
  {
    FileStore again(path, size);   // a restart: the data is still there
    auto w = pattern(SparseMemoryStore::page_bytes + 1000, 3);
    std::vector<char> r(w.size());
    again.read(r.data(), r.size(), 7 * SparseMemoryStore::page_bytes - 500);
    CHECK(std::equal(r.begin(), r.begin() + 500, w.begin()));
  }
  CHECK_THROWS_WITH(FileStore("/dev/null", size), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(FileStore(dir.path.string(), size), Catch::Contains("Is a directory"));
  CHECK_THROWS_WITH(FileStore((dir.path / "no/such/dir").string(), size),
                    Catch::Contains("cannot open"));
}
