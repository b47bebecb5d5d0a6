#include "bench/experiments/sweep/job_pool.hpp"

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
    : label_(std::move(label)), planned_(planned), line_(progress ? stderr : nullptr) {
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
  if (!line_.enabled()) return;
  const auto now = std::chrono::steady_clock::now();
  const double secs = std::chrono::duration<double>(now - start_).count();
  const std::size_t total = std::max(planned_, done_);
  const std::size_t percent = total ? done_ * 100 / total : 100;
  if (line_.tty()) {
    if (!final && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    line_.draw(label_, total ? static_cast<double>(done_) / static_cast<double>(total) : 1.0,
               fmt::format("{}/{} {:.1f}s", done_, total, secs), 30);
    if (final) line_.finish();
  } else {
    // Not a terminal: a line every 10%.
    if (!final && percent < last_percent_ + 10) return;
    last_percent_ = percent;
    line_.print(fmt::format("{}: {}/{} runs ({}%) {:.1f}s", label_, done_, total, percent, secs));
  }
}

}  // namespace disksched
