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

namespace {

// The same writes (with a flush and a FUA write among them) into a held buffer; between
// them, the timing model's destages of a given run (they follow real-time arrivals, so
// each run has its own). Returns the media after a cut with `seed`.
std::string run_then_cut(bool held, const std::vector<Extent>& destages, std::uint64_t seed,
                         WriteCacheStore::Cut* cut = nullptr) {
  SparseMemoryStore media(64 * kSector);
  WriteCacheStore cache(media, kSector);
  if (held) cache.hold(16);
  std::size_t next_destage = 0;
  for (int i = 0; i < 12; ++i) {
    const std::string data(kSector * (1 + i % 3), static_cast<char>('a' + i));
    cache.write_buffered(data.data(), static_cast<std::uint32_t>(data.size()),
                         static_cast<std::uint64_t>((i * 5) % 40) * kSector);
    if (i == 3) cache.flush();
    if (i == 7) cache.write_through("FUA", 3, 10 * kSector + 7);
    if (next_destage < destages.size()) cache.destage(destages[next_destage++]);
  }
  const WriteCacheStore::Cut c = cache.cut(seed);
  if (cut) *cut = c;
  CHECK(cache.buffered_sectors() == 0);
  return read(media, 0, 64 * kSector);
}

}  // namespace

TEST_CASE("held for a seeded cut, the image depends on the writes alone, not on destages",
          "[write-cache]") {
  // Two runs of the same writes whose timing models destaged differently.
  const std::vector<Extent> run1{{5, 2}, {20, 1}, {0, 40}};
  const std::vector<Extent> run2{{}, {}, {25, 3}, {}, {35, 2}};
  WriteCacheStore::Cut c1, c2;
  const std::string image = run_then_cut(true, run1, 7, &c1);
  CHECK(run_then_cut(true, run2, 7, &c2) == image);
  CHECK(run_then_cut(true, {}, 7) == image);
  CHECK(c1.written == c2.written);
  CHECK(c1.lost == c2.lost);
  CHECK(c1.lost > 0);  // the seed loses something, or the test shows nothing
  // Another seed keeps another part.
  CHECK(run_then_cut(true, run1, 8) != image);
  // Not held (as before), what the timing model destaged before the cut is on the media
  // whatever the seed says: a run whose arrivals left time to destage all loses nothing.
  std::vector<Extent> all_at_end(11);
  all_at_end.push_back({0, 64});
  WriteCacheStore::Cut idle, busy;
  CHECK(run_then_cut(false, all_at_end, 8, &idle) != run_then_cut(false, {}, 8, &busy));
  CHECK(idle.lost == 0);
  CHECK(busy.lost > 0);
}

TEST_CASE("a held buffer writes out at a flush and, oldest first, past its size",
          "[write-cache]") {
  SparseMemoryStore media(64 * kSector);
  WriteCacheStore cache(media, kSector);
  cache.hold(2);
  const std::string a(kSector, 'a'), b(kSector, 'b'), c(kSector, 'c');
  cache.write_buffered(a.data(), kSector, 9 * kSector);
  cache.write_buffered(b.data(), kSector, 1 * kSector);
  cache.destage({0, 64});  // the timing model's: ignored while held
  CHECK(read(media, 9 * kSector, kSector) == std::string(kSector, '\0'));
  CHECK(cache.buffered_sectors() == 2);
  cache.write_buffered(a.data(), kSector, 9 * kSector);  // rewritten: now the newest
  cache.write_buffered(c.data(), kSector, 5 * kSector);  // a third: the oldest (1) goes out
  CHECK(read(media, 1 * kSector, kSector) == b);
  CHECK(read(media, 9 * kSector, kSector) == std::string(kSector, '\0'));
  CHECK(cache.buffered_sectors() == 2);
  cache.flush();
  CHECK(read(media, 9 * kSector, kSector) == a);
  CHECK(read(media, 5 * kSector, kSector) == c);
  CHECK(cache.buffered_sectors() == 0);
  const WriteCacheStore::Cut none = cache.cut(3);  // after a flush a cut loses nothing
  CHECK(none.lost == 0);
  CHECK(none.written == 0);
}
