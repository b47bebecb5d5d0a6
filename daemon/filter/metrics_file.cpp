#include "daemon/filter/metrics_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched {

MetricsFile::MetricsFile(std::string path, Millis interval_ms, Render render)
    : path_(std::move(path)), interval_ms_(interval_ms), render_(std::move(render)) {
  write_now();
}

MetricsFile::~MetricsFile() { stop(); }

void MetricsFile::write_now() {
  // Hidden and without the .prom suffix, so the collector never reads it.
  const auto slash = path_.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash);
  const std::string name = path_.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::string tmp = fmt::format("{}/.{}.tmp", dir, name);
  const std::string text = render_();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(fmt::format("cannot write '{}': {}", tmp, std::strerror(e)));
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot rename '{}' to '{}': {}", tmp, path_, std::strerror(e)));
  }
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
