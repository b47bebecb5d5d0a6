// The metrics as a file for node_exporter's textfile collector: rewritten at an
// interval (and once more at stop) by writing a hidden temporary file in the same
// directory and renaming it over the old one, so a scrape never reads half a file
// (replace_file: a link, device or FIFO at the path is refused, never written through).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "predictor/device_model.hpp"

namespace disksched {

class MetricsFile {
 public:
  using Render = std::function<std::string()>;

  // Writes the file once now, so a path that cannot be written stops start-up.
  // Throws std::runtime_error naming the path and the reason.
  MetricsFile(std::string path, Millis interval_ms, Render render);
  ~MetricsFile();
  MetricsFile(const MetricsFile&) = delete;
  MetricsFile& operator=(const MetricsFile&) = delete;

  void start();  // the writer thread (nbdkit: .after_fork)
  void stop();   // writes a last time and joins
  void write_now();

 private:
  void loop();

  std::string path_;
  Millis interval_ms_;
  Render render_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace disksched
