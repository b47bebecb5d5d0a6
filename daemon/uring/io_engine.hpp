// How the uring plugin issues I/O: one interface, two engines. UringEngine hands every
// request to the one thread that owns an io_uring; PreadEngine (fallback=pread) does the
// same work with plain system calls in the calling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace disksched::uring {

struct IoRequest {
  enum class Kind : std::uint8_t { Read, Write, Fsync, Fallocate };
  Kind kind = Kind::Read;
  void* buf = nullptr;
  std::uint64_t length = 0;
  std::uint64_t offset = 0;
  int rw_flags = 0;        // RWF_DSYNC for a FUA write
  int fixed_buffer = -1;   // index of a registered buffer holding `buf`, or -1
  int fallocate_mode = 0;  // for Fallocate
  // Out: 0 when the whole request was done, else -errno. A read that meets the end of
  // the file before `length` fails with -EIO.
  int result = 0;

  // The engine's bookkeeping while the request is in flight.
  void* engine_job = nullptr;
  std::uint64_t engine_done = 0;
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  virtual std::string_view name() const = 0;
  // Issues every request (they may run concurrently and in any order) and returns when
  // all have completed; each one's `result` says how it went. Safe to call from many
  // threads at once.
  virtual void run(std::span<IoRequest> requests) = 0;
  void run(IoRequest& r) { run(std::span<IoRequest>(&r, 1)); }
  // Registered-buffer support: true if `fixed_buffer` indices may be used.
  virtual bool has_fixed_buffers() const { return false; }
};

// Plain pread/pwritev2/fdatasync/fallocate in the caller's thread.
std::unique_ptr<IoEngine> make_pread_engine(int fd);

}  // namespace disksched::uring
