// The io_uring engine: one thread owns the ring (liburing allows one submitter and one
// completer; here they are the same thread, so the ring can be IORING_SETUP_SINGLE_ISSUER
// with DEFER_TASKRUN). nbdkit's worker threads put their requests on a mutex-protected
// queue; the ring thread takes the whole queue every time round its loop. Only when it
// is about to block in the kernel does a worker have to wake it, by writing an eventfd
// "doorbell" on which the ring thread keeps a read armed, so one io_uring_submit_and_wait()
// wakes it for new work and for completions alike. Each worker sleeps on a futex until
// all of its requests have completed.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <liburing.h>

#include "daemon/uring/io_engine.hpp"

namespace disksched::uring {

// Whether this process may create an io_uring: 0, or the -errno io_uring_queue_init gave.
int probe_io_uring();
// What to tell the user when it may not: the error, how to check, what to do.
std::string io_uring_unavailable_message(int err);

class UringEngine final : public IoEngine {
 public:
  // Starts the ring thread, which creates a ring of `entries` entries and registers `fd`
  // and `buffers` (the caller keeps them alive and unchanged while the engine runs) (for READ_FIXED/WRITE_FIXED; if registering them fails, e.g. for lack
  // of locked memory, the engine works without). Throws std::system_error if the ring
  // cannot be created.
  // `poll_ns`: before blocking in the kernel, the ring thread keeps looking for new
  // requests and completions for this long after its last new request (0: never). It
  // saves the workers the doorbell write and both sides a thread switch when requests
  // come in quick succession, for a little CPU.
  UringEngine(int fd, unsigned entries, std::vector<iovec> buffers,
              std::int64_t poll_ns = kDefaultPollNs);
  static constexpr std::int64_t kDefaultPollNs = 20'000;
  ~UringEngine() override;
  UringEngine(const UringEngine&) = delete;
  UringEngine& operator=(const UringEngine&) = delete;

  std::string_view name() const override { return "io_uring"; }
  void run(std::span<IoRequest> requests) override;
  bool has_fixed_buffers() const override { return fixed_buffers_; }
  // One line for the debug log: setup flags, registrations.
  const std::string& description() const { return description_; }


 private:
  // A worker's batch. `state`: kPending, then kDone; kSleeping while the worker is (about
  // to be) blocked in futex_wait, so the ring thread knows a wake-up is needed.
  struct Job {
    std::atomic<std::uint32_t> remaining{0};
    std::atomic<std::uint32_t> state{0};
  };
  static constexpr std::uint32_t kPending = 0, kDone = 1, kSleeping = 2;

  void thread_main();
  bool poll_for_work(std::int64_t last_work_ns);
  static void wait_for(Job& job);
  int setup_ring(std::vector<iovec>& buffers);
  void arm_doorbell();
  void prep(io_uring_sqe* sqe, IoRequest* r);
  void on_completion(IoRequest* r, int res);
  static void finish(IoRequest* r, int result);

  int fd_;
  unsigned entries_;
  std::int64_t poll_ns_;
  io_uring ring_{};
  int doorbell_ = -1;
  std::uint64_t doorbell_value_ = 0;
  bool fixed_buffers_ = false;
  bool fixed_file_ = false;
  std::string description_;

  std::mutex mutex_;                 // guards queue_, stop_ and ring_asleep_
  std::deque<IoRequest*> queue_;     // handed over, not yet taken by the ring thread
  bool stop_ = false;
  bool ring_asleep_ = false;         // the ring thread blocks (or is about to) in the kernel

  std::deque<IoRequest*> backlog_;   // ring thread only: taken, waiting for an SQE
  unsigned inflight_ = 0;            // ring thread only
  std::thread thread_;
};

}  // namespace disksched::uring
