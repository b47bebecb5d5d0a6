#include "daemon/filter/control_save.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace disksched {
namespace {

std::runtime_error failure(const std::string& what) { return std::runtime_error(what); }

std::string errno_text() { return std::strerror(errno); }

const char* kind_of(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  return "not a regular file";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

}  // namespace

const char* const kSaveOff =
    "save is off: the filter writes files only into the directory given by "
    "sched-save-dir=DIR (start nbdkit with it to allow save)";

std::string save_in_directory(const std::string& save_dir, const std::string& target,
                              const std::string& contents) {
  if (save_dir.empty()) throw failure(kSaveOff);
  std::string dir_named, name = target;
  if (const auto slash = target.rfind('/'); slash != std::string::npos) {
    if (target.front() != '/')
      throw failure(fmt::format("save needs a file name or an absolute path, not '{}'", target));
    dir_named = slash == 0 ? "/" : target.substr(0, slash);
    name = target.substr(slash + 1);
  }
  if (name.empty() || name == "." || name == "..")
    throw failure(fmt::format("save needs a file name, e.g. save refined.json, not '{}'", target));

  Fd dir(open(save_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0)
    throw failure(fmt::format("sched-save-dir={}: {}", save_dir, errno_text()));
  if (!dir_named.empty()) {
    struct stat want{}, got{};
    if (fstat(dir.get(), &want) != 0 || stat(dir_named.c_str(), &got) != 0 ||
        want.st_dev != got.st_dev || want.st_ino != got.st_ino)
      throw failure(fmt::format(
          "'{}' is not in the save directory '{}' (sched-save-dir=): give a file name, "
          "e.g. save {}, or a path in that directory",
          target, save_dir, name));
  }
  const std::string shown = save_dir + (save_dir.back() == '/' ? "" : "/") + name;

  struct stat st{};
  if (fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
    throw failure(fmt::format("'{}' exists and is {}: save replaces only regular files and "
                              "never follows a link; choose another name",
                              shown, kind_of(st.st_mode)));

  static std::atomic<unsigned> serial{0};
  const std::string tmp = fmt::format(".{}.tmp-{}-{}", name, getpid(), serial++);
  Fd out(openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0644));
  if (out.get() < 0)
    throw failure(fmt::format("cannot create a temporary file in '{}': {}", save_dir,
                              errno_text()));
  auto abandon = [&](const std::string& what) {
    const std::string e = errno_text();
    unlinkat(dir.get(), tmp.c_str(), 0);
    return failure(fmt::format("cannot save '{}': {}: {}", shown, what, e));
  };
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(out.get(), contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) throw abandon("write");
    done += static_cast<std::size_t>(n);
  }
  if (fsync(out.get()) != 0) throw abandon("fsync");
  if (close(out.release()) != 0) throw abandon("close");
  if (renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) != 0) throw abandon("rename");
  fsync(dir.get());  // the new name survives a crash; failing here loses nothing written
  return shown;
}

}  // namespace disksched
