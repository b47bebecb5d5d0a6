#include "daemon/uring/uring_engine.hpp"

#include <pthread.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <future>
#include <system_error>

#include <fmt/format.h>

#include "common/clock.hpp"
#include "common/futex.hpp"
#include "common/wait.hpp"

namespace disksched::uring {

namespace {

constexpr std::uint64_t kDoorbell = 0;   // user_data of the doorbell read (no request is at 0)

}  // namespace

void UringEngine::wait_for(Job& job) {
  // No spinning: with many workers on few CPUs it only takes time from the ring thread.
  std::uint32_t expected = kPending;
  if (!job.state.compare_exchange_strong(expected, kSleeping, std::memory_order_acq_rel)) return;
  while (job.state.load(std::memory_order_acquire) != kDone)
    futex_wait(job.state, kSleeping);
}

int probe_io_uring() {
  io_uring ring;
  const int err = io_uring_queue_init(4, &ring, 0);
  if (err == 0) io_uring_queue_exit(&ring);
  return err;
}

std::string io_uring_unavailable_message(int err) {
  std::string sysctl = "unreadable";
  std::ifstream f("/proc/sys/kernel/io_uring_disabled");
  if (std::string v; f >> v) sysctl = v;
  return fmt::format(
      "io_uring is not available to this process (io_uring_queue_init: {}). It may be disabled "
      "by the kernel.io_uring_disabled sysctl (check with `sysctl kernel.io_uring_disabled`: "
      "0 = allowed, 1 = root or kernel.io_uring_group only, 2 = off; here it is {}) or blocked "
      "by a seccomp filter, such as a container runtime's default profile. Add fallback=pread "
      "to serve with pread/pwrite instead.",
      std::strerror(-err), sysctl);
}

UringEngine::UringEngine(int fd, unsigned entries, std::vector<iovec> buffers,
                         std::int64_t poll_ns)
    : fd_(fd), entries_(entries), poll_ns_(poll_ns) {
  doorbell_ = eventfd(0, EFD_CLOEXEC);
  if (doorbell_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  // The ring is created by its thread: with SINGLE_ISSUER the creator is the submitter.
  std::promise<int> ready;
  auto started = ready.get_future();
  thread_ = std::thread([this, &ready, buffers = std::move(buffers)]() mutable {
    pthread_setname_np(pthread_self(), "uring-ring");
    const int err = setup_ring(buffers);
    ready.set_value(err);
    if (err == 0) thread_main();
  });
  const int err = started.get();
  if (err != 0) {
    thread_.join();
    ::close(doorbell_);
    throw std::system_error(-err, std::generic_category(), "io_uring_queue_init");
  }
}

UringEngine::~UringEngine() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] ssize_t r = ::write(doorbell_, &one, sizeof one);
  thread_.join();
  io_uring_queue_exit(&ring_);
  ::close(doorbell_);
}

int UringEngine::setup_ring(std::vector<iovec>& buffers) {
  // Newest flags first; older kernels say EINVAL.
  const unsigned flag_sets[] = {
      IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
      IORING_SETUP_COOP_TASKRUN,
      0,
  };
  const char* flag_names[] = {"SINGLE_ISSUER|DEFER_TASKRUN", "COOP_TASKRUN", "none"};
  int err = -EINVAL;
  std::size_t used = 0;
  for (; used < std::size(flag_sets); ++used) {
    io_uring_params p = {};
    p.flags = flag_sets[used];
    err = io_uring_queue_init_params(entries_, &ring_, &p);
    if (err != -EINVAL) break;
  }
  if (err < 0) return err;

  fixed_file_ = io_uring_register_files(&ring_, &fd_, 1) == 0;
  std::string buffer_note = "none";
  if (!buffers.empty()) {
    const int r = io_uring_register_buffers(&ring_, buffers.data(), buffers.size());
    fixed_buffers_ = r == 0;
    buffer_note = r == 0 ? fmt::format("{} x {} bytes", buffers.size(), buffers[0].iov_len)
                         : fmt::format("failed ({}), using plain reads and writes", std::strerror(-r));
  }
  description_ = fmt::format("io_uring: {} entries, setup flags {}, fixed file {}, fixed buffers {}",
                             entries_, flag_names[used], fixed_file_ ? "yes" : "no", buffer_note);
  return 0;
}

void UringEngine::run(std::span<IoRequest> requests) {
  if (requests.empty()) return;
  Job job;
  job.remaining.store(static_cast<std::uint32_t>(requests.size()), std::memory_order_relaxed);
  bool wake;
  {
    std::lock_guard lock(mutex_);
    for (IoRequest& r : requests) {
      r.engine_job = &job;
      r.engine_done = 0;
      r.result = 0;
      queue_.push_back(&r);
    }
    // A ring thread that is awake will find the queue before it sleeps; one that sleeps
    // needs the doorbell, once.
    wake = ring_asleep_;
    ring_asleep_ = false;
  }
  if (wake) {
    const std::uint64_t one = 1;
    while (::write(doorbell_, &one, sizeof one) < 0 && errno == EINTR) {
    }
  }
  wait_for(job);
}

void UringEngine::arm_doorbell() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (!sqe) {
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  io_uring_prep_read(sqe, doorbell_, &doorbell_value_, sizeof doorbell_value_, 0);
  io_uring_sqe_set_data64(sqe, kDoorbell);
}

void UringEngine::prep(io_uring_sqe* sqe, IoRequest* r) {
  const int fd = fixed_file_ ? 0 : fd_;
  auto* buf = static_cast<char*>(r->buf) + r->engine_done;
  const auto len = static_cast<unsigned>(r->length - r->engine_done);
  const auto off = r->offset + r->engine_done;
  const bool fixed = fixed_buffers_ && r->fixed_buffer >= 0;
  switch (r->kind) {
    case IoRequest::Kind::Read:
      if (fixed)
        io_uring_prep_read_fixed(sqe, fd, buf, len, off, r->fixed_buffer);
      else
        io_uring_prep_read(sqe, fd, buf, len, off);
      break;
    case IoRequest::Kind::Write:
      if (fixed)
        io_uring_prep_write_fixed(sqe, fd, buf, len, off, r->fixed_buffer);
      else
        io_uring_prep_write(sqe, fd, buf, len, off);
      sqe->rw_flags = r->rw_flags;
      break;
    case IoRequest::Kind::Fsync:
      io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
      break;
    case IoRequest::Kind::Fallocate:
      io_uring_prep_fallocate(sqe, fd, r->fallocate_mode, static_cast<off_t>(r->offset),
                              static_cast<off_t>(r->length));
      break;
  }
  if (fixed_file_) sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data(sqe, r);
}

void UringEngine::finish(IoRequest* r, int result) {
  r->result = result;
  auto* job = static_cast<Job*>(r->engine_job);
  if (job->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // The worker may return (and its Job vanish) as soon as it sees kDone; the futex
    // wake only uses the address (a stale one wakes nobody, or someone spuriously).
    if (job->state.exchange(kDone, std::memory_order_acq_rel) == kSleeping)
      futex_wake(job->state);
  }
}

void UringEngine::on_completion(IoRequest* r, int res) {
  if (res == -EINTR || res == -EAGAIN) {   // try again
    backlog_.push_front(r);
    return;
  }
  if (res < 0) return finish(r, res);
  if (r->kind == IoRequest::Kind::Read || r->kind == IoRequest::Kind::Write) {
    if (res == 0) return finish(r, -EIO);   // end of file (or a device that took nothing)
    r->engine_done += static_cast<std::uint64_t>(res);
    if (r->engine_done < r->length) {       // short transfer: issue the rest
      backlog_.push_front(r);
      return;
    }
  }
  finish(r, 0);
}

// Spins until a completion or a new request is there, or poll_ns_ have passed since
// `last_work_ns`. True if there is something to do. Deferred completions (io-wq work,
// DEFER_TASKRUN) only appear when the kernel is entered, hence get_events now and then.
bool UringEngine::poll_for_work(std::int64_t last_work_ns) {
  if (poll_ns_ <= 0) return false;
  io_uring_submit_and_get_events(&ring_);
  for (int round = 1;; ++round) {
    if (io_uring_cq_ready(&ring_) > 0) return true;
    {
      std::lock_guard lock(mutex_);
      if (!queue_.empty() || stop_) return true;
    }
    if (monotonic_ns() - last_work_ns > poll_ns_) return false;
    for (int i = 0; i < 32; ++i) cpu_relax();
    if (round % 16 == 0) io_uring_get_events(&ring_);
  }
}

void UringEngine::thread_main() {
  arm_doorbell();
  bool stopping = false;
  std::int64_t last_work_ns = 0;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (!queue_.empty()) last_work_ns = monotonic_ns();
      backlog_.insert(backlog_.end(), queue_.begin(), queue_.end());
      queue_.clear();
      stopping = stop_;
    }
    // One SQ slot stays free for re-arming the doorbell.
    while (!backlog_.empty() && inflight_ + 1 < entries_) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (!sqe) break;
      prep(sqe, backlog_.front());
      backlog_.pop_front();
      ++inflight_;
    }
    if (stopping && inflight_ == 0 && backlog_.empty()) break;
    const bool room = inflight_ + 1 < entries_;
    bool block = !(room && poll_for_work(last_work_ns));
    if (block) {
      std::lock_guard lock(mutex_);
      if (!queue_.empty() && room)
        block = false;   // more came meanwhile
      else
        ring_asleep_ = true;
    }
    int r;
    if (block) {
      r = io_uring_submit_and_wait(&ring_, 1);
      std::lock_guard lock(mutex_);
      ring_asleep_ = false;
    } else {
      r = io_uring_submit_and_get_events(&ring_);
    }
    if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
      // The ring itself failed: fail everything rather than hang the workers.
      for (IoRequest* q : backlog_) finish(q, r);
      backlog_.clear();
    }
    unsigned head, seen = 0;
    io_uring_cqe* cqe;
    bool rearm = false;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      if (cqe->user_data == kDoorbell) {
        rearm = true;   // the queue is taken at the top of the loop
        continue;
      }
      --inflight_;
      on_completion(static_cast<IoRequest*>(io_uring_cqe_get_data(cqe)), cqe->res);
    }
    io_uring_cq_advance(&ring_, seen);
    if (rearm) {
      std::lock_guard lock(mutex_);
      stopping = stop_;
    }
    if (rearm && !stopping) arm_doorbell();
  }
}

}  // namespace disksched::uring
