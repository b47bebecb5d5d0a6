// A pool of worker threads for independent simulation runs, with a progress bar.
//
// Jobs may submit further jobs (a sweep submits the next rate once the previous one
// is known not to be saturated). Results must not depend on which worker ran a job
// or when: each job writes only its own result slot, so the output is the same for
// any number of threads. Each worker keeps its own device models (load_model per
// worker), so nothing mutable is shared between threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/progress_line.hpp"
#include "predictor/device_model.hpp"

namespace disksched {

class Worker {
 public:
  // This worker's instance of the model `spec` (loaded on first use).
  const DeviceModel& model(const std::string& spec);

 private:
  std::map<std::string, std::unique_ptr<DeviceModel>> models_;
};

class JobPool {
 public:
  using Job = std::function<void(Worker&)>;

  // `threads` 0: every core. `label` and `planned` (the expected number of jobs, which
  // may grow with add_planned) drive the progress bar on stderr; `progress` false
  // silences it.
  JobPool(std::size_t threads, std::string label, std::size_t planned, bool progress = true);
  ~JobPool();
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  void submit(Job job);
  // Planned jobs that will not run (skipped) count as done for the progress bar.
  void skip(std::size_t n);
  void add_planned(std::size_t n);
  // Waits for every job (including ones submitted by jobs); rethrows the first
  // exception a job threw.
  void wait();

  std::size_t threads() const { return workers_.size(); }

 private:
  void work();
  void draw(bool final);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<Job> jobs_;
  std::size_t running_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::string label_;
  std::size_t planned_, done_ = 0;
  ProgressLine line_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::size_t last_percent_ = 0;
};

}  // namespace disksched
