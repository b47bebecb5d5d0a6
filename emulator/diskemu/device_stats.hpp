// What the emulated device has done: requests per op, modelled service and queueing
// times, and the lateness of real completions against the modelled ones.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "emulator/diskemu/latency_histogram.hpp"
#include "predictor/device_model.hpp"

namespace disksched::diskemu {

class DeviceStats {
 public:
  // One completed request: its device-time service and wait (ms), and how late (real ns,
  // >= 0) the reply left compared to the modelled completion.
  void record(Op op, Millis service_ms, Millis wait_ms, std::int64_t lateness_ns);
  void record_error(Op op);

  // A snapshot as JSON (see the man page, "STATISTICS").
  nlohmann::json to_json() const;
  std::uint64_t requests() const;

 private:
  static constexpr std::size_t op_count = 6;
  mutable std::mutex mutex_;
  std::array<std::uint64_t, op_count> by_op_{};
  std::array<std::uint64_t, op_count> errors_{};
  std::uint64_t requests_ = 0;
  double service_sum_ms_ = 0.0;
  double wait_sum_ms_ = 0.0;
  LatencyHistogram lateness_;
};

// Writes `j` to `path` atomically (replace_file: a fresh temporary file renamed over
// it; a link, device or FIFO at `path` is refused). Throws FileError naming the path.
void write_json_file(const std::string& path, const nlohmann::json& j);

}  // namespace disksched::diskemu
