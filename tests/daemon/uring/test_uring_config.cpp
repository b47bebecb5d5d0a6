// The uring plugin's parameters.
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

#include "daemon/uring/backing_file.hpp"
#include "daemon/uring/uring_config.hpp"

using namespace disksched::uring;
using Catch::Contains;

namespace {

const disksched::KeyParsers& parsers = disksched::portable_key_parsers();

}  // namespace

TEST_CASE("uring keys", "[uring][config]") {
  UringConfig c;
  CHECK_THROWS_WITH(c.check(), Contains("file= parameter is required"));
  c.set("file", "/dev/sdb", parsers);
  c.set("direct", "true", parsers);
  c.set("fallback", "pread", parsers);
  c.set("entries", "256", parsers);
  c.set("buffers", "16", parsers);
  c.set("buffer-size", "1M", parsers);
  c.set("poll-us", "50", parsers);
  c.set("nowait-reads", "false", parsers);
  CHECK_NOTHROW(c.check());
  CHECK(c.poll_us == 50);
  CHECK_FALSE(c.nowait_reads);
  CHECK(c.file == "/dev/sdb");
  CHECK(c.direct);
  CHECK(c.fallback == Fallback::Pread);
  CHECK(c.entries == 256);
  CHECK(c.buffers == 16);
  CHECK(c.buffer_bytes == (1u << 20));
}

TEST_CASE("bad uring keys and values name themselves", "[uring][config]") {
  UringConfig c;
  CHECK_THROWS_WITH(c.set("direct", "maybe", parsers), Contains("direct=maybe") && Contains("boolean"));
  CHECK_THROWS_WITH(c.set("fallback", "mmap", parsers), Contains("fallback=mmap") && Contains("pread"));
  CHECK_THROWS_WITH(c.set("entries", "100", parsers), Contains("entries=100") && Contains("power of two"));
  CHECK_THROWS_WITH(c.set("entries", "4", parsers), Contains("entries=4"));
  CHECK_THROWS_WITH(c.set("buffers", "0", parsers), Contains("buffers=0"));
  CHECK_THROWS_WITH(c.set("buffer-size", "1000", parsers), Contains("buffer-size=1000") && Contains("4096"));
  CHECK_THROWS_WITH(c.set("file", "", parsers), Contains("file="));
  CHECK_THROWS_WITH(c.set("poll-us", "5000", parsers), Contains("poll-us=5000"));
  CHECK_THROWS_WITH(c.set("nowait-reads", "x", parsers), Contains("nowait-reads=x"));
  CHECK_THROWS_WITH(c.set("o_direct", "1", parsers), Contains("unknown parameter 'o_direct'") && Contains("direct"));
}

TEST_CASE("uring block sizes: a block device's own, block-size= for a file", "[uring][config]") {
  UringConfig c;
  c.set("file", "/dev/sdb", parsers);
  // A file says nothing unless told; a 4Kn disk's image is told with block-size=.
  CHECK(advertised_block_sizes(0, 0, false, 1) == BlockSizes{});
  CHECK(c.block_sizes(false, 0, 0) == std::pair<std::uint32_t, std::uint32_t>{0, 0});
  c.set("block-size", "4k", parsers);
  const auto [fl, fp] = c.block_sizes(false, 0, 0);
  CHECK(advertised_block_sizes(fl, fp, false, 1) == BlockSizes{4096, 4096, 64u << 20});
  // A 4Kn device reports itself; a 512e one prefers its physical 4K; O_DIRECT's alignment
  // raises the minimum.
  c.block_size = 0;
  const auto [l4, p4] = c.block_sizes(true, 4096, 4096);
  CHECK(advertised_block_sizes(l4, p4, false, 1) == BlockSizes{4096, 4096, 64u << 20});
  const auto [le, pe] = c.block_sizes(true, 512, 4096);
  CHECK(advertised_block_sizes(le, pe, false, 1) == BlockSizes{512, 4096, 64u << 20});
  CHECK(advertised_block_sizes(0, 0, true, 512) == BlockSizes{512, 4096, 64u << 20});
  CHECK(advertised_block_sizes(512, 512, true, 4096) == BlockSizes{4096, 4096, 64u << 20});
  // block-size= cannot overrule a device, and is a power of two.
  c.set("block-size", "512", parsers);
  CHECK_THROWS_WITH(c.block_sizes(true, 4096, 4096),
                    Contains("block-size=512") && Contains("4096-byte logical blocks"));
  CHECK_THROWS_WITH(c.set("block-size", "1000", parsers),
                    Contains("block-size=1000") && Contains("power of two"));
}
