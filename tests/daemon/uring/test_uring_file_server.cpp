// The uring plugin's request logic on a real file, with both engines, buffered and
// O_DIRECT: random unaligned operations against an in-memory reference, and concurrent
// unaligned writes sharing blocks (a read-modify-write must never lose a neighbour's
// bytes).
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "daemon/uring/file_server.hpp"
#include "daemon/uring/uring_engine.hpp"

using namespace disksched::uring;

namespace {

// A scratch file on a real file system (O_DIRECT needs one: not tmpfs).
struct ScratchFile {
  std::string path;
  explicit ScratchFile(std::uint64_t size) {
    const char* dir = std::getenv("DISKSCHED_SCRATCH");
    std::string tmpl = std::string(dir ? dir : "/var/tmp") + "/uring-test.XXXXXX";
    int fd = mkstemp(tmpl.data());
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, static_cast<off_t>(size)) == 0);
    close(fd);
    path = tmpl;
  }
  ~ScratchFile() { unlink(path.c_str()); }
};

struct Setup {
  std::unique_ptr<BackingFile> file;
  std::unique_ptr<BouncePool> pool;
  std::unique_ptr<IoEngine> engine;
  std::unique_ptr<FileServer> server;
};

Setup make(const std::string& path, bool direct, bool uring, bool nowait = false) {
  Setup s;
  s.file = std::make_unique<BackingFile>(path, direct);
  // Small bounce buffers so that requests span several of them.
  if (direct) s.pool = std::make_unique<BouncePool>(4, 8192);
  if (uring)
    s.engine = std::make_unique<UringEngine>(s.file->fd(), 32,
                                             s.pool ? s.pool->iovecs() : std::vector<iovec>{});
  else
    s.engine = make_pread_engine(s.file->fd());
  s.server = std::make_unique<FileServer>(*s.file, *s.engine, s.pool.get(),
                                          FileServer::Options{nowait, nowait});
  return s;
}

std::vector<std::pair<bool, bool>> variants() {
  std::vector<std::pair<bool, bool>> v;   // (direct, uring)
  const bool have_uring = probe_io_uring() == 0;
  if (!have_uring) WARN("io_uring is unavailable here: testing the pread engine only");
  for (bool direct : {false, true})
    for (bool uring : {false, true})
      if (!uring || have_uring) v.emplace_back(direct, uring);
  return v;
}

}  // namespace

TEST_CASE("random unaligned operations read back like a byte array", "[uring][file]") {
  constexpr std::uint64_t size = 1 << 20;
  for (auto [direct, uring] : variants())
  for (bool nowait : {false, true}) {
    if (direct && nowait) continue;   // nowait applies to buffered I/O only
    INFO("direct=" << direct << " engine=" << (uring ? "io_uring" : "pread") << " nowait=" << nowait);
    ScratchFile scratch(size);
    Setup s = make(scratch.path, direct, uring, nowait);
    REQUIRE(s.server->size() == size);
    std::vector<char> ref(size, 0), buf;
    std::mt19937_64 rng(direct * 2 + uring);
    std::uint64_t unaligned_writes = 0;
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t len = 1 + rng() % 40000;
      const std::uint64_t off = rng() % (size - len);
      const int what = static_cast<int>(rng() % 10);
      buf.resize(len);
      if (what < 5) {
        for (auto& c : buf) c = static_cast<char>(rng());
        REQUIRE(s.server->write(buf.data(), len, off, what == 0) == 0);
        std::copy(buf.begin(), buf.end(), ref.begin() + off);
        if (off % 512 || len % 512) ++unaligned_writes;
      } else if (what < 7) {
        REQUIRE(s.server->zero(len, off, what == 5, false, false) == 0);
        std::fill(ref.begin() + off, ref.begin() + off + len, 0);
      } else if (what == 7) {
        // A file's trim punches a hole: it reads as zeros afterwards.
        REQUIRE(s.server->trim(len, off, false) == 0);
        std::fill(ref.begin() + off, ref.begin() + off + len, 0);
      } else {
        REQUIRE(s.server->read(buf.data(), len, off) == 0);
        REQUIRE(std::equal(buf.begin(), buf.end(), ref.begin() + off));
      }
    }
    REQUIRE(s.server->flush() == 0);
    buf.resize(size);
    REQUIRE(s.server->read(buf.data(), size, 0) == 0);
    CHECK(buf == ref);
    // Unaligned writes needed a read-modify-write only with O_DIRECT.
    CHECK(s.server->rmw_count() == (direct ? unaligned_writes : 0));
  }
}

TEST_CASE("concurrent unaligned writes to shared blocks lose nothing", "[uring][file]") {
  constexpr std::uint64_t size = 8 * 1024;
  for (auto [direct, uring] : variants()) {
    INFO("direct=" << direct << " engine=" << (uring ? "io_uring" : "pread"));
    ScratchFile scratch(size);
    Setup s = make(scratch.path, direct, uring);
    // Thread t owns bytes [t*100, t*100+100) of every 1000-byte stretch: 4 threads, and
    // every 512-byte block is shared by two or more of them.
    constexpr int threads = 4, rounds = 40;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::vector<char> data(100);
        for (int r = 0; r < rounds; ++r) {
          std::fill(data.begin(), data.end(), static_cast<char>(1 + t * 50 + r % 50));
          for (std::uint64_t base = 0; base + 1000 <= size; base += 1000)
            REQUIRE(s.server->write(data.data(), 100, base + t * 100, false) == 0);
        }
      });
    for (auto& th : pool) th.join();
    std::vector<char> all(size);
    REQUIRE(s.server->read(all.data(), size, 0) == 0);
    for (std::uint64_t base = 0; base + 1000 <= size; base += 1000)
      for (int t = 0; t < threads; ++t)
        for (int b = 0; b < 100; ++b)
          REQUIRE(all[base + t * 100 + b] == static_cast<char>(1 + t * 50 + (rounds - 1) % 50));
  }
}

TEST_CASE("a read past the end of the file fails instead of inventing data", "[uring][file]") {
  for (auto [direct, uring] : variants()) {
    for (bool nowait : {false, true}) {
      INFO("direct=" << direct << " engine=" << (uring ? "io_uring" : "pread") << " nowait=" << nowait);
      ScratchFile scratch(8192);
      Setup s = make(scratch.path, direct, uring, nowait);
      std::vector<char> buf(4096);
      CHECK(s.server->read(buf.data(), 4096, 8192) == -EIO);
      CHECK(s.server->read(buf.data(), 4096, 6144) == -EIO);   // half there, half beyond
      CHECK(s.server->read(buf.data(), 4096, 4096) == 0);
    }
  }
}

TEST_CASE("nowait reads and writes skip the ring, the data is the same", "[uring][file]") {
  ScratchFile scratch(1 << 20);
  Setup s = make(scratch.path, false, probe_io_uring() == 0, true);
  std::vector<char> data(300000), back(300000);
  std::mt19937_64 rng(5);
  for (auto& c : data) c = static_cast<char>(rng());
  REQUIRE(s.server->write(data.data(), data.size(), 1000, false) == 0);
  REQUIRE(s.server->read(back.data(), back.size(), 1000) == 0);   // just written: cached
  CHECK(back == data);
  CHECK(s.server->nowait_reads() == 1);
  CHECK(s.server->inline_writes() == 1);   // without blocking, or synchronously on ext4
  // O_DIRECT never takes that path.
  Setup d = make(scratch.path, true, probe_io_uring() == 0, true);
  REQUIRE(d.server->read(back.data(), 4096, 4096) == 0);
  CHECK(d.server->nowait_reads() == 0);
}
