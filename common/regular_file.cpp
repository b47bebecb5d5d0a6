#include "common/regular_file.hpp"
#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace disksched {
namespace {

std::string errno_text(int e) { return std::strerror(e); }


FileError not_replaced(const std::string& shown, mode_t mode) {
  return FileError(fmt::format("'{}' exists and is {}: replaces only regular files and never "
                               "follows a link; remove it or choose another path",
                               shown, file_kind(mode)));
}

FileError not_read(const std::string& shown, mode_t mode) {
  return FileError(fmt::format("'{}' is {}, not read: only a regular file is, never through a link",
                               shown, file_kind(mode)));
}

// A fresh temporary file beside the target, never one that was there before. Hidden
// and without the target's suffix, so a collector reading *.prom never reads it.
std::string create_temp(int dir_fd, const std::string& name, mode_t mode, const std::string& shown,
                        int& fd_out) {
  static std::atomic<unsigned> serial{0};
  const std::string stem = name.substr(0, 200);  // room for the suffix within NAME_MAX
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = fmt::format(".{}.tmp-{}-{}", stem, ::getpid(), serial++);
    const int fd = ::openat(dir_fd, tmp.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) {
      fd_out = fd;
      return tmp;
    }
    if (errno != EEXIST)
      throw FileError(fmt::format("cannot write '{}': cannot create a temporary file beside it: {}",
                                  shown, errno_text(errno)));
  }
  throw FileError(fmt::format("cannot write '{}': no free temporary name beside it", shown));
}

// 0, or the errno of the write that failed.
int write_all(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

const char* file_kind(mode_t m) {
  if (S_ISREG(m)) return "a regular file";
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  return "not a regular file";
}

void replace_file_at(int dir_fd, const std::string& name, std::string_view contents,
                     const std::string& shown, mode_t mode) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    throw FileError(fmt::format("'{}': expected a file name", shown));
  struct stat st{};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
    throw not_replaced(shown, st.st_mode);
  int raw = -1;
  const std::string tmp = create_temp(dir_fd, name, mode, shown, raw);
  UniqueFd out(raw);
  auto abandon = [&](const char* step, int e) {
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return FileError(fmt::format("cannot write '{}': {}: {}", shown, step, errno_text(e)));
  };
  if (const int e = write_all(out.get(), contents)) throw abandon("write", e);
  if (::fsync(out.get()) != 0) throw abandon("fsync", errno);
  if (::close(out.release()) != 0) throw abandon("close", errno);
  // rename replaces a name, never what a link there points to: a link planted after the
  // check above is replaced itself and its target stays untouched.
  if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) throw abandon("rename", errno);
  ::fsync(dir_fd);  // the new name survives a crash; failing here loses nothing written
}

void replace_file(const std::string& path, std::string_view contents, mode_t mode) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    throw FileError(fmt::format("'{}': expected a file name, not a directory", path));
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0)
    throw FileError(fmt::format("cannot write '{}': its directory '{}': {}", path, dir,
                                errno_text(errno)));
  replace_file_at(dir_fd.get(), name, contents, path, mode);
}

std::optional<std::string> read_regular_file(const std::string& path, std::size_t max_bytes) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw FileError(fmt::format("cannot read '{}': {}", path, errno_text(errno)));
  }
  // Looked at before opening: opening a FIFO blocks, opening a device can act.
  if (!S_ISREG(st.st_mode)) throw not_read(path, st.st_mode);
  UniqueFd in(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (in.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw FileError(fmt::format("cannot read '{}': {}", path, errno_text(errno)));
  }
  // What was opened is what was looked at (not swapped for something else meanwhile).
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw not_read(path, st.st_mode);
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw FileError(fmt::format("'{}' is {} bytes, more than the {} expected here; not read", path,
                                st.st_size, max_bytes));
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileError(fmt::format("cannot read '{}': {}", path, errno_text(errno)));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes)
      throw FileError(fmt::format("'{}' grew past {} bytes while read; not read", path, max_bytes));
  }
  return text;
}

}  // namespace disksched
