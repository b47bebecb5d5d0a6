// Regular files only: replace_file never writes through a link or into a device, FIFO or
// directory; read_regular_file never reads one.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "common/regular_file.hpp"
#include "tests/scratch_dir.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

using testing::put;
using testing::ScratchDir;
using testing::slurp;

namespace {

std::size_t entries(const std::string& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("replace_file: creates, then replaces a regular file whole", "[regular_file]") {
  ScratchDir dir;
  replace_file(dir / "m.prom", "a 1\n");
  CHECK(slurp(dir / "m.prom") == "a 1\n");
  replace_file(dir / "m.prom", "b 2\n");
  CHECK(slurp(dir / "m.prom") == "b 2\n");
  replace_file(dir / "empty", "");
  CHECK(slurp(dir / "empty").empty());
  // Nothing but the two files: no temporary file is left behind.
  CHECK(entries(dir.path) == 2);
}

TEST_CASE("replace_file: a link planted at the name is refused and its target untouched",
          "[regular_file]") {
  ScratchDir dir, elsewhere;
  put(elsewhere / "victim", "precious\n");
  REQUIRE(symlink((elsewhere / "victim").c_str(), (dir / "m.prom").c_str()) == 0);
  REQUIRE_THROWS_WITH(replace_file(dir / "m.prom", "x"),
                      Contains(dir / "m.prom") && Contains("is a symbolic link") &&
                          Contains("never follows a link"));
  CHECK(slurp(elsewhere / "victim") == "precious\n");
  CHECK(std::filesystem::is_symlink(dir / "m.prom"));
  // A dangling link too: it would create the file where the link points.
  REQUIRE(symlink((elsewhere / "new").c_str(), (dir / "d.prom").c_str()) == 0);
  REQUIRE_THROWS_WITH(replace_file(dir / "d.prom", "x"), Contains("is a symbolic link"));
  CHECK(!std::filesystem::exists(elsewhere / "new"));
}

TEST_CASE("replace_file: a planted temporary name is never opened", "[regular_file]") {
  // The old writers opened DIR/.NAME.tmp with O_TRUNC, following a link planted there.
  ScratchDir dir, elsewhere;
  put(elsewhere / "victim", "precious\n");
  for (int i = 0; i < 4; ++i) {
    const std::string planted = dir / (".m.prom.tmp-" + std::to_string(getpid()) + "-" + std::to_string(i));
    REQUIRE(symlink((elsewhere / "victim").c_str(), planted.c_str()) == 0);
  }
  REQUIRE(symlink((elsewhere / "victim").c_str(), (dir / ".m.prom.tmp").c_str()) == 0);
  replace_file(dir / "m.prom", "fresh\n");
  CHECK(slurp(dir / "m.prom") == "fresh\n");
  CHECK(slurp(elsewhere / "victim") == "precious\n");
}

TEST_CASE("replace_file: a device, a FIFO, a directory at the name are refused",
          "[regular_file]") {
  ScratchDir dir;
  REQUIRE(mkfifo((dir / "fifo").c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(replace_file(dir / "fifo", "x"), Contains("is a FIFO"));
  CHECK(std::filesystem::is_fifo(dir / "fifo"));
  REQUIRE(mkdir((dir / "d").c_str(), 0700) == 0);
  REQUIRE_THROWS_WITH(replace_file(dir / "d", "x"), Contains("is a directory"));
  // A link to /dev/null: refused as a link, /dev/null untouched.
  REQUIRE(symlink("/dev/null", (dir / "null").c_str()) == 0);
  REQUIRE_THROWS_WITH(replace_file(dir / "null", "x"), Contains("is a symbolic link"));
  struct stat st{};
  REQUIRE(stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  // A device node of our own (root only), standing in for /dev/null or a disk.
  if (mknod((dir / "dev").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) {
    REQUIRE_THROWS_WITH(replace_file(dir / "dev", "x"), Contains(dir / "dev") && Contains("is a device"));
    REQUIRE(lstat((dir / "dev").c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
  REQUIRE_THROWS_WITH(replace_file(dir / "nodir/x", "x"), Contains("its directory"));
  REQUIRE_THROWS_WITH(replace_file(dir.path + "/", "x"), Contains("expected a file name"));
}

TEST_CASE("read_regular_file: a file, nothing, or a refusal without opening", "[regular_file]") {
  ScratchDir dir;
  put(dir / "p.json", "{}\n");
  CHECK(read_regular_file(dir / "p.json", 100) == std::optional<std::string>("{}\n"));
  CHECK(!read_regular_file(dir / "absent", 100));
  REQUIRE_THROWS_WITH(read_regular_file(dir / "p.json", 2), Contains("more than the 2"));
  // A FIFO nobody writes would block the reader for good; /dev/zero would never end.
  REQUIRE(mkfifo((dir / "fifo").c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(read_regular_file(dir / "fifo", 100), Contains("is a FIFO"));
  REQUIRE(symlink("/dev/zero", (dir / "zero").c_str()) == 0);
  REQUIRE_THROWS_WITH(read_regular_file(dir / "zero", 100),
                      Contains(dir / "zero") && Contains("is a symbolic link"));
  REQUIRE_THROWS_WITH(read_regular_file("/dev/zero", 100), Contains("is a device"));
  REQUIRE(mkdir((dir / "d").c_str(), 0700) == 0);
  REQUIRE_THROWS_WITH(read_regular_file(dir / "d", 100), Contains("is a directory"));
}
