// Splitting ranges at block boundaries (O_DIRECT widening, block-device discard).
#include <catch2/catch.hpp>

#include "daemon/uring/alignment.hpp"

using namespace disksched::uring;

TEST_CASE("split_aligned partitions every small range exactly", "[uring][alignment]") {
  for (std::uint64_t align : {1u, 2u, 8u, 512u}) {
    for (std::uint64_t off = 0; off < 3 * align + 3; ++off) {
      for (std::uint64_t len = 1; len < 4 * align + 3; ++len) {
        const Split s = split_aligned(off, len, align);
        // The pieces are contiguous and cover the range.
        REQUIRE(s.head.offset == off);
        REQUIRE(s.head.length + s.body.length + s.tail.length == len);
        if (!s.body.empty()) {
          REQUIRE(s.body.offset == s.head.end());
          REQUIRE(s.tail.offset == s.body.end());
          REQUIRE(is_aligned(s.body.offset, align));
          REQUIRE(is_aligned(s.body.length, align));
          REQUIRE(s.head.length < align);
          REQUIRE(s.tail.length < align);
        } else {
          // No whole block inside: then the range is within two blocks at most.
          REQUIRE(s.tail.empty());
          REQUIRE(align_up(off, align) >= align_down(off + len, align));
        }
      }
    }
  }
  CHECK(split_aligned(100, 1000, 512).body.offset == 512);
  CHECK(split_aligned(100, 1000, 512).body.length == 512);
  CHECK(split_aligned(100, 1000, 512).tail.length == 76);
}

TEST_CASE("cover_aligned is the smallest covering block range", "[uring][alignment]") {
  CHECK(cover_aligned(0, 512, 512).offset == 0);
  CHECK(cover_aligned(0, 512, 512).length == 512);
  CHECK(cover_aligned(100, 10, 512).length == 512);
  CHECK(cover_aligned(500, 24, 512).length == 1024);
  CHECK(cover_aligned(4096 + 1, 4096, 4096).offset == 4096);
  CHECK(cover_aligned(4096 + 1, 4096, 4096).length == 8192);
  CHECK(cover_aligned(7, 5, 1).offset == 7);
  CHECK(cover_aligned(7, 5, 1).length == 5);
}
