// The NBD operations on the backing file, in terms of an IoEngine: what the uring plugin
// does for each request, without nbdkit (so it is unit tested on real files).
//
// direct=true (O_DIRECT): data goes through aligned bounce buffers; a request that is not
// aligned to the device's O_DIRECT alignment is widened to whole blocks: reads read the
// covering blocks, writes read-modify-write the partial first and last blocks. An
// unaligned write holds a lock exclusively while aligned writes, trims and zeroes share
// it, so a read-modify-write can never put back stale bytes over a concurrent write to
// the same block (the same rule as nbdkit's blocksize filter).
//
// Trim punches a hole in a file (any alignment) or discards the whole logical blocks of a
// block device (BLKDISCARD); it is advisory, so a file system or device that cannot do it
// makes it a no-op. Zero uses fallocate (PUNCH_HOLE when the client allows a hole, else
// ZERO_RANGE), falling back to writing zeros unless the client asked for a fast zero.
// FUA writes use RWF_DSYNC; FUA trims and zeroes, and flushes, fdatasync.
//
// Handing a request to the ring thread and back costs two thread switches, more than a
// 4 KiB copy to or from the page cache. So with buffered I/O (never with O_DIRECT):
//
// nowait_reads: a read first tries preadv2(RWF_NOWAIT) in the calling thread, the same
// non-blocking attempt io_uring makes first: what is in the page cache is copied there
// and then; the rest (what would wait for the device) goes through the ring.
//
// nowait_writes: likewise pwritev2(RWF_NOWAIT). Where the file system cannot write
// through the page cache without blocking (EOPNOTSUPP: ext4, for one), io_uring would
// only hand the write to one of its kernel worker threads to be done synchronously; it is
// then done synchronously in the calling thread instead, which is the same work without
// the two extra thread switches. Writes that would block (EAGAIN) go through the ring.
#pragma once

#include <atomic>
#include <cstdint>
#include <shared_mutex>

#include "daemon/uring/backing_file.hpp"
#include "daemon/uring/bounce_pool.hpp"
#include "daemon/uring/io_engine.hpp"

namespace disksched::uring {

class FileServer {
 public:
  struct Options {
    bool nowait_reads = false;
    bool nowait_writes = false;
  };
  // `pool` is required when the file was opened with O_DIRECT.
  FileServer(const BackingFile& file, IoEngine& engine, BouncePool* pool, Options options);
  FileServer(const BackingFile& file, IoEngine& engine, BouncePool* pool)
      : FileServer(file, engine, pool, Options{}) {}

  // The exported size: the file's, rounded down to the O_DIRECT alignment when direct.
  std::uint64_t size() const { return size_; }
  std::uint32_t align() const { return align_; }

  // Each returns 0 or -errno.
  int read(void* buf, std::uint32_t count, std::uint64_t offset);
  int write(const void* buf, std::uint32_t count, std::uint64_t offset, bool fua);
  int flush();
  int trim(std::uint32_t count, std::uint64_t offset, bool fua);
  int zero(std::uint32_t count, std::uint64_t offset, bool may_trim, bool fua, bool fast);

  // How many writes needed a read-modify-write, and how many zeroes were written as
  // data (for tests and the debug log).
  std::uint64_t rmw_count() const { return rmw_count_.load(); }
  std::uint64_t zero_writes() const { return zero_writes_.load(); }
  // Reads served whole from the page cache by the non-blocking attempt, and writes done
  // in the calling thread (without blocking, or synchronously where the file system
  // cannot say).
  std::uint64_t nowait_reads() const { return nowait_hits_.load(); }
  std::uint64_t inline_writes() const { return inline_writes_.load(); }

 private:
  int read_direct(char* out, std::uint64_t count, std::uint64_t offset);
  int write_direct(const char* in, std::uint64_t count, std::uint64_t offset, bool fua);
  int write_buffered(const char* in, std::uint64_t count, std::uint64_t offset, bool fua);
  int write_zeros(std::uint64_t count, std::uint64_t offset, bool fua);   // lock held
  int fallocate_zero(std::uint64_t count, std::uint64_t offset, bool may_trim, bool fast);
  int discard(std::uint64_t count, std::uint64_t offset);
  int fsync();

  const BackingFile& file_;
  IoEngine& engine_;
  BouncePool* pool_;
  std::uint64_t size_;
  std::uint32_t align_;
  std::shared_mutex rmw_lock_;   // only used with direct
  std::atomic<bool> can_punch_{true}, can_zero_range_{true}, can_discard_{true};
  std::atomic<bool> nowait_reads_, nowait_writes_;
  std::atomic<bool> fs_has_nowait_writes_{true};   // until the file system says otherwise
  std::atomic<std::uint64_t> rmw_count_{0}, zero_writes_{0}, nowait_hits_{0}, inline_writes_{0};
};

}  // namespace disksched::uring
