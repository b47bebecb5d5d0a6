// The write cache's data over the media: reads see the newest data, the media holds only
// what was destaged or written through, a drop loses exactly the extent dropped.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "emulator/diskemu/store.hpp"
#include "emulator/diskemu/write_cache_store.hpp"

using namespace disksched;
using namespace disksched::diskemu;

namespace {

constexpr std::uint32_t kSector = 512;

std::string read(auto& s, std::uint64_t offset, std::uint32_t count) {
  std::string out(count, '?');
  s.read(out.data(), count, offset);
  return out;
}

}  // namespace

TEST_CASE("buffered writes read back at once and reach the media only when destaged",
          "[write-cache]") {
  SparseMemoryStore media(64 * kSector);
  WriteCacheStore cache(media, kSector);
  const std::string a(2 * kSector, 'a');
  cache.write_buffered(a.data(), a.size(), 4 * kSector);
  CHECK(read(cache, 4 * kSector, 2 * kSector) == a);
  CHECK(read(media, 4 * kSector, 2 * kSector) == std::string(2 * kSector, '\0'));
  CHECK(cache.buffered_sectors() == 2);
  cache.destage({4, 1});
  CHECK(read(media, 4 * kSector, kSector) == std::string(kSector, 'a'));
  CHECK(read(media, 5 * kSector, kSector) == std::string(kSector, '\0'));
  cache.drop({5, 1});  // the power cut: sector 5 never reaches the media
  CHECK(read(cache, 5 * kSector, kSector) == std::string(kSector, '\0'));
  CHECK(cache.buffered_sectors() == 0);
}

TEST_CASE("a partial-sector buffered write merges with what the sector reads now",
          "[write-cache]") {
  SparseMemoryStore media(8 * kSector);
  const std::string m(kSector, 'm');
  media.write(m.data(), kSector, kSector);
  WriteCacheStore cache(media, kSector);
  cache.write_buffered("xy", 2, kSector + 10);
  std::string want = m;
  want[10] = 'x';
  want[11] = 'y';
  CHECK(read(cache, kSector, kSector) == want);
  cache.destage({1, 1});
  CHECK(read(media, kSector, kSector) == want);
}

TEST_CASE("a write-through write lands over the buffered sectors it touches", "[write-cache]") {
  SparseMemoryStore media(8 * kSector);
  WriteCacheStore cache(media, kSector);
  const std::string b(2 * kSector, 'b');
  cache.write_buffered(b.data(), b.size(), 0);
  cache.write_through("FUA", 3, 100);  // sector 0 is no longer dirty: on the media, merged
  std::string want(kSector, 'b');
  want.replace(100, 3, "FUA");
  CHECK(read(media, 0, kSector) == want);
  CHECK(cache.buffered_sectors() == 1);  // sector 1 still buffered
  cache.zero_through(kSector, kSector);
  CHECK(read(cache, kSector, kSector) == std::string(kSector, '\0'));
  CHECK(cache.buffered_sectors() == 0);
}
