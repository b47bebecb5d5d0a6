#include "bench/sim/job_pool.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace disksched {

const DeviceModel& Worker::model(const std::string& spec) {
  auto it = models_.find(spec);
  if (it == models_.end()) it = models_.emplace(spec, load_model(spec)).first;
  return *it->second;
}

JobPool::JobPool(std::size_t threads, std::string label, std::size_t planned, bool progress)
    : label_(std::move(label)), planned_(planned), progress_(progress),
      tty_(::isatty(STDERR_FILENO) != 0) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  start_ = last_draw_ = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

JobPool::~JobPool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void JobPool::submit(Job job) {
  {
    std::lock_guard<std::mutex> l(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void JobPool::skip(std::size_t n) {
  std::lock_guard<std::mutex> l(mu_);
  done_ += n;
  draw(false);
}

void JobPool::add_planned(std::size_t n) {
  std::lock_guard<std::mutex> l(mu_);
  planned_ += n;
}

void JobPool::wait() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return jobs_.empty() && running_ == 0; });
  draw(true);
  if (error_) {
    auto e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void JobPool::work() {
  Worker worker;
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    cv_.wait(l, [this] { return stop_ || !jobs_.empty(); });
    if (stop_ && jobs_.empty()) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    ++running_;
    const bool failed = error_ != nullptr;
    l.unlock();
    std::exception_ptr err;
    if (!failed) {  // after a failure the remaining jobs are drained, not run
      try {
        job(worker);
      } catch (...) {
        err = std::current_exception();
      }
    }
    l.lock();
    if (err && !error_) error_ = err;
    --running_;
    ++done_;
    draw(false);
    if (jobs_.empty() && running_ == 0) idle_cv_.notify_all();
  }
}

// Called with mu_ held.
void JobPool::draw(bool final) {
  if (!progress_) return;
  const auto now = std::chrono::steady_clock::now();
  const double secs = std::chrono::duration<double>(now - start_).count();
  const std::size_t total = std::max(planned_, done_);
  const std::size_t percent = total ? done_ * 100 / total : 100;
  if (tty_) {
    if (!final && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(percent * kWidth / 100);
    std::fprintf(stderr, "\r%s [%s%s] %zu/%zu %3zu%% %.1fs", label_.c_str(),
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(kWidth - filled), ' ').c_str(), done_, total,
                 percent, secs);
    if (final) std::fputc('\n', stderr);
  } else {
    // Not a terminal: a line every 10%.
    if (!final && percent < last_percent_ + 10) return;
    last_percent_ = percent;
    std::fprintf(stderr, "%s: %zu/%zu runs (%zu%%) %.1fs\n", label_.c_str(), done_, total, percent,
                 secs);
  }
  std::fflush(stderr);
}

}  // namespace disksched
