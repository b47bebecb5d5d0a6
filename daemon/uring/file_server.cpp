#include "daemon/uring/file_server.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "daemon/uring/alignment.hpp"

namespace disksched::uring {

namespace {

// Bounce buffers one request may hold at once (more chunks go in rounds).
constexpr std::uint32_t kMaxBuffersPerRequest = 8;
// Zeros for writing zeros without O_DIRECT.
constexpr std::size_t kZeroBytes = 1 << 20;
const char* zero_block() {
  static const std::vector<char> z(kZeroBytes, 0);
  return z.data();
}

int first_error(const std::vector<IoRequest>& reqs) {
  for (const IoRequest& r : reqs)
    if (r.result < 0) return r.result;
  return 0;
}

// Locks rmw_lock_ (shared or exclusive) only when direct I/O needs it.
class RmwGuard {
 public:
  RmwGuard(std::shared_mutex& m, bool needed, bool exclusive)
      : m_(needed ? &m : nullptr), exclusive_(exclusive) {
    if (!m_) return;
    if (exclusive_)
      m_->lock();
    else
      m_->lock_shared();
  }
  ~RmwGuard() {
    if (!m_) return;
    if (exclusive_)
      m_->unlock();
    else
      m_->unlock_shared();
  }
  RmwGuard(const RmwGuard&) = delete;
  RmwGuard& operator=(const RmwGuard&) = delete;

 private:
  std::shared_mutex* m_;
  bool exclusive_;
};

}  // namespace

FileServer::FileServer(const BackingFile& file, IoEngine& engine, BouncePool* pool,
                       Options options)
    : file_(file),
      engine_(engine),
      pool_(pool),
      align_(file.direct() ? file.direct_align() : 1),
      nowait_reads_(options.nowait_reads && !file.direct()),
      nowait_writes_(options.nowait_writes && !file.direct()) {
  size_ = align_down(file.size(), align_);
}

// ---- read ----

int FileServer::read(void* buf, std::uint32_t count, std::uint64_t offset) {
  if (file_.direct()) return read_direct(static_cast<char*>(buf), count, offset);
  std::uint64_t done = 0;
  if (nowait_reads_.load(std::memory_order_relaxed)) {
    while (done < count) {
      iovec iov{static_cast<char*>(buf) + done, count - done};
      const ssize_t n = preadv2(file_.fd(), &iov, 1, static_cast<off_t>(offset + done), RWF_NOWAIT);
      if (n > 0) {
        done += static_cast<std::uint64_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EOPNOTSUPP) nowait_reads_.store(false);   // not here: ring only
      break;   // would block (EAGAIN), end of file, or an error: the ring says which
    }
    if (done == count) {
      nowait_hits_.fetch_add(1, std::memory_order_relaxed);
      return 0;
    }
  }
  IoRequest r;
  r.kind = IoRequest::Kind::Read;
  r.buf = static_cast<char*>(buf) + done;
  r.length = count - done;
  r.offset = offset + done;
  engine_.run(r);
  return r.result;
}

int FileServer::read_direct(char* out, std::uint64_t count, std::uint64_t offset) {
  const Span cov = cover_aligned(offset, count, align_);
  const std::uint64_t B = pool_->buffer_bytes();
  std::uint64_t pos = cov.offset;
  while (pos < cov.end()) {
    const auto chunks = static_cast<std::uint32_t>(std::min<std::uint64_t>(
        (cov.end() - pos + B - 1) / B, kMaxBuffersPerRequest));
    BounceLease lease(*pool_, chunks);
    std::vector<IoRequest> reqs;
    for (int idx : lease.indices()) {
      if (pos >= cov.end()) break;
      IoRequest r;
      r.kind = IoRequest::Kind::Read;
      r.buf = pool_->buffer(idx);
      r.length = std::min(B, cov.end() - pos);
      r.offset = pos;
      r.fixed_buffer = engine_.has_fixed_buffers() ? idx : -1;
      reqs.push_back(r);
      pos += r.length;
    }
    engine_.run(reqs);
    if (int e = first_error(reqs)) return e;
    for (const IoRequest& r : reqs) {
      const std::uint64_t lo = std::max(r.offset, offset);
      const std::uint64_t hi = std::min(r.offset + r.length, offset + count);
      if (lo < hi) std::memcpy(out + (lo - offset), static_cast<char*>(r.buf) + (lo - r.offset), hi - lo);
    }
  }
  return 0;
}

// ---- write ----

int FileServer::write(const void* buf, std::uint32_t count, std::uint64_t offset, bool fua) {
  const auto* in = static_cast<const char*>(buf);
  if (!file_.direct()) return write_buffered(in, count, offset, fua);
  const bool aligned = is_aligned(offset, align_) && is_aligned(count, align_);
  RmwGuard guard(rmw_lock_, true, !aligned);
  return write_direct(in, count, offset, fua);
}

int FileServer::write_buffered(const char* in, std::uint64_t count, std::uint64_t offset, bool fua) {
  const int rwf = fua ? RWF_DSYNC : 0;
  std::uint64_t done = 0;
  if (nowait_writes_.load(std::memory_order_relaxed)) {
    // Without blocking if the file system can; synchronously if it cannot say.
    const bool sync_inline = !fs_has_nowait_writes_.load(std::memory_order_relaxed);
    while (done < count) {
      iovec iov{const_cast<char*>(in) + done, count - done};
      const ssize_t n = pwritev2(file_.fd(), &iov, 1, static_cast<off_t>(offset + done),
                                 rwf | (sync_inline ? 0 : RWF_NOWAIT));
      if (n > 0) {
        done += static_cast<std::uint64_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EOPNOTSUPP && !sync_inline) {
        fs_has_nowait_writes_.store(false);
        return write_buffered(in + done, count - done, offset + done, fua);
      }
      if (n < 0 && errno != EAGAIN) return -errno;
      break;   // would block: the ring takes the rest
    }
    if (done == count) {
      inline_writes_.fetch_add(1, std::memory_order_relaxed);
      return 0;
    }
  }
  IoRequest r;
  r.kind = IoRequest::Kind::Write;
  r.buf = const_cast<char*>(in) + done;
  r.length = count - done;
  r.offset = offset + done;
  r.rw_flags = rwf;
  engine_.run(r);
  return r.result;
}

// `in` == nullptr writes zeros. The caller holds rmw_lock_ (exclusively if unaligned).
int FileServer::write_direct(const char* in, std::uint64_t count, std::uint64_t offset, bool fua) {
  const Span cov = cover_aligned(offset, count, align_);
  const std::uint64_t end = offset + count;
  const std::uint64_t B = pool_->buffer_bytes();
  if (cov.offset != offset || cov.end() != end) rmw_count_.fetch_add(1);
  std::uint64_t pos = cov.offset;
  while (pos < cov.end()) {
    const auto chunks = static_cast<std::uint32_t>(std::min<std::uint64_t>(
        (cov.end() - pos + B - 1) / B, kMaxBuffersPerRequest));
    BounceLease lease(*pool_, chunks);
    std::vector<IoRequest> writes, reads;
    for (int idx : lease.indices()) {
      if (pos >= cov.end()) break;
      IoRequest w;
      w.kind = IoRequest::Kind::Write;
      w.buf = pool_->buffer(idx);
      w.length = std::min(B, cov.end() - pos);
      w.offset = pos;
      w.rw_flags = fua ? RWF_DSYNC : 0;
      w.fixed_buffer = engine_.has_fixed_buffers() ? idx : -1;
      // Partial blocks at either end of the request: read what is there first.
      IoRequest r = w;
      r.kind = IoRequest::Kind::Read;
      r.rw_flags = 0;
      r.length = align_;
      if (w.offset < offset) reads.push_back(r);   // the first block
      if (w.offset + w.length > end) {
        const std::uint64_t last = w.offset + w.length - align_;
        if (reads.empty() || reads.back().offset != last) {
          r.offset = last;
          r.buf = static_cast<char*>(w.buf) + (last - w.offset);
          reads.push_back(r);
        }
      }
      writes.push_back(w);
      pos += w.length;
    }
    if (!reads.empty()) {
      engine_.run(reads);
      if (int e = first_error(reads)) return e;
    }
    for (IoRequest& w : writes) {
      const std::uint64_t lo = std::max(w.offset, offset);
      const std::uint64_t hi = std::min(w.offset + w.length, end);
      char* dst = static_cast<char*>(w.buf) + (lo - w.offset);
      if (in)
        std::memcpy(dst, in + (lo - offset), hi - lo);
      else
        std::memset(dst, 0, hi - lo);
    }
    engine_.run(writes);
    if (int e = first_error(writes)) return e;
  }
  return 0;
}

int FileServer::write_zeros(std::uint64_t count, std::uint64_t offset, bool fua) {
  zero_writes_.fetch_add(1);
  if (file_.direct()) return write_direct(nullptr, count, offset, fua);
  std::vector<IoRequest> reqs;
  for (std::uint64_t done = 0; done < count;) {
    IoRequest r;
    r.kind = IoRequest::Kind::Write;
    r.buf = const_cast<char*>(zero_block());
    r.length = std::min<std::uint64_t>(kZeroBytes, count - done);
    r.offset = offset + done;
    r.rw_flags = fua ? RWF_DSYNC : 0;
    reqs.push_back(r);
    done += r.length;
  }
  engine_.run(reqs);
  return first_error(reqs);
}

// ---- flush, trim, zero ----

int FileServer::fsync() {
  IoRequest r;
  r.kind = IoRequest::Kind::Fsync;
  engine_.run(r);
  return r.result;
}

int FileServer::flush() { return fsync(); }

int FileServer::discard(std::uint64_t count, std::uint64_t offset) {
  if (!can_discard_.load()) return 0;
  if (file_.block_device()) {
    const Span body = split_aligned(offset, count, file_.discard_align()).body;
    if (body.empty()) return 0;
    std::uint64_t range[2] = {body.offset, body.length};
    if (ioctl(file_.fd(), BLKDISCARD, range) == 0) return 0;
    if (errno == EOPNOTSUPP || errno == ENOTTY) {
      can_discard_.store(false);
      return 0;
    }
    return -errno;
  }
  IoRequest r;
  r.kind = IoRequest::Kind::Fallocate;
  r.fallocate_mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
  r.offset = offset;
  r.length = count;
  engine_.run(r);
  if (r.result == -EOPNOTSUPP) {
    can_discard_.store(false);
    return 0;
  }
  return r.result;
}

int FileServer::trim(std::uint32_t count, std::uint64_t offset, bool fua) {
  {
    RmwGuard guard(rmw_lock_, file_.direct(), false);
    if (int e = discard(count, offset)) return e;
  }
  return fua ? fsync() : 0;
}

// 0 if done, -EOPNOTSUPP if no fallocate mode could do it, else -errno. For a fast zero
// on a block device only PUNCH_HOLE will do: the kernel does it natively or refuses,
// whereas ZERO_RANGE falls back to writing zeros itself.
int FileServer::fallocate_zero(std::uint64_t count, std::uint64_t offset, bool may_trim, bool fast) {
  struct Mode { int flags; std::atomic<bool>* supported; };
  const bool zero_range_ok = !(fast && file_.block_device());
  const Mode modes[] = {
      {FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, may_trim ? &can_punch_ : nullptr},
      {FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, zero_range_ok ? &can_zero_range_ : nullptr},
  };
  for (const Mode& m : modes) {
    if (!m.supported || !m.supported->load()) continue;
    IoRequest r;
    r.kind = IoRequest::Kind::Fallocate;
    r.fallocate_mode = m.flags;
    r.offset = offset;
    r.length = count;
    engine_.run(r);
    if (r.result != -EOPNOTSUPP && r.result != -ENODEV) return r.result;
    m.supported->store(false);
  }
  return -EOPNOTSUPP;
}

int FileServer::zero(std::uint32_t count, std::uint64_t offset, bool may_trim, bool fua, bool fast) {
  // Files take any range; block devices only whole logical blocks (the edges are written).
  const Split parts = split_aligned(offset, count, file_.discard_align());
  // Zeros written as data over partial blocks are a read-modify-write.
  const bool unaligned_direct =
      file_.direct() && (!is_aligned(offset, align_) || !is_aligned(offset + count, align_));
  int e = 0;
  {
    RmwGuard guard(rmw_lock_, file_.direct(), unaligned_direct);
    if (!parts.body.empty()) {
      e = fallocate_zero(parts.body.length, parts.body.offset, may_trim, fast);
      if (e == -EOPNOTSUPP) {
        if (fast) return -ENOTSUP;   // the client only wanted a zero faster than writing
        e = write_zeros(parts.body.length, parts.body.offset, false);
      }
      if (e) return e;
    }
    for (const Span& edge : {parts.head, parts.tail})
      if (!edge.empty())
        if ((e = write_zeros(edge.length, edge.offset, false))) return e;
  }
  return fua ? fsync() : 0;
}

}  // namespace disksched::uring
