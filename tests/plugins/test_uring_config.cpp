// The uring plugin's parameters.
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

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
