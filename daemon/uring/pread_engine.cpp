// fallback=pread: the same operations as the ring thread, as blocking system calls in
// nbdkit's worker threads (which are already a thread pool).
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#include "daemon/uring/io_engine.hpp"

namespace disksched::uring {

namespace {

class PreadEngine final : public IoEngine {
 public:
  explicit PreadEngine(int fd) : fd_(fd) {}
  std::string_view name() const override { return "pread"; }

  void run(std::span<IoRequest> requests) override {
    for (IoRequest& r : requests) r.result = one(r);
  }

 private:
  int one(const IoRequest& r) const {
    switch (r.kind) {
      case IoRequest::Kind::Read: {
        auto* p = static_cast<char*>(r.buf);
        std::uint64_t done = 0;
        while (done < r.length) {
          ssize_t n = ::pread(fd_, p + done, r.length - done, static_cast<off_t>(r.offset + done));
          if (n < 0 && errno == EINTR) continue;
          if (n < 0) return -errno;
          if (n == 0) return -EIO;
          done += static_cast<std::uint64_t>(n);
        }
        return 0;
      }
      case IoRequest::Kind::Write: {
        auto* p = static_cast<char*>(r.buf);
        std::uint64_t done = 0;
        while (done < r.length) {
          iovec iov{p + done, r.length - done};
          ssize_t n = ::pwritev2(fd_, &iov, 1, static_cast<off_t>(r.offset + done), r.rw_flags);
          if (n < 0 && errno == EINTR) continue;
          if (n < 0) return -errno;
          if (n == 0) return -EIO;
          done += static_cast<std::uint64_t>(n);
        }
        return 0;
      }
      case IoRequest::Kind::Fsync:
        return ::fdatasync(fd_) < 0 ? -errno : 0;
      case IoRequest::Kind::Fallocate:
        return ::fallocate(fd_, r.fallocate_mode, static_cast<off_t>(r.offset),
                           static_cast<off_t>(r.length)) < 0
                   ? -errno
                   : 0;
    }
    return -EINVAL;
  }

  int fd_;
};

}  // namespace

std::unique_ptr<IoEngine> make_pread_engine(int fd) { return std::make_unique<PreadEngine>(fd); }

}  // namespace disksched::uring
