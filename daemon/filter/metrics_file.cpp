#include "daemon/filter/metrics_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "common/regular_file.hpp"

namespace disksched {

MetricsFile::MetricsFile(std::string path, Millis interval_ms, Render render)
    : path_(std::move(path)), interval_ms_(interval_ms), render_(std::move(render)) {
  write_now();
}

MetricsFile::~MetricsFile() { stop(); }

void MetricsFile::write_now() {
  // A fresh hidden temporary file, renamed over the target; a link, device or FIFO at
  // the path is refused (a textfile-collector directory may be writable by others).
  replace_file(path_, render_());
}

void MetricsFile::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void MetricsFile::stop() {
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void MetricsFile::loop() {
  const auto interval = std::chrono::duration<double, std::milli>(interval_ms_);
  std::unique_lock lock(mu_);
  bool failing = false;  // said once, until a write succeeds again
  while (true) {
    const bool stop = cv_.wait_for(lock, interval, [this] { return stopping_; });
    lock.unlock();
    try {
      write_now();
      if (failing) std::fprintf(stderr, "nbdkit: disksched: sched-metrics: written again\n");
      failing = false;
    } catch (const std::exception& e) {
      // A full disk must not stop the filter; say so once and try again each interval.
      if (!failing)
        std::fprintf(stderr,
                     "nbdkit: disksched: warning: sched-metrics: %s (said once; tried again "
                     "every interval)\n",
                     e.what());
      failing = true;
    }
    if (stop) return;
    lock.lock();
  }
}

}  // namespace disksched
