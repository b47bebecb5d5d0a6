#include "emulator/diskemu/device_stats.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

#include "common/regular_file.hpp"

namespace disksched::diskemu {

void DeviceStats::record(Op op, Millis service_ms, Millis wait_ms, std::int64_t lateness_ns) {
  std::lock_guard lock(mutex_);
  ++by_op_[static_cast<std::size_t>(op)];
  ++requests_;
  service_sum_ms_ += service_ms;
  wait_sum_ms_ += wait_ms;
  lateness_.record(lateness_ns);
}

void DeviceStats::record_error(Op op) {
  std::lock_guard lock(mutex_);
  ++errors_[static_cast<std::size_t>(op)];
}

std::uint64_t DeviceStats::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

nlohmann::json DeviceStats::to_json() const {
  std::lock_guard lock(mutex_);
  nlohmann::json j;
  j["requests"] = requests_;
  nlohmann::json ops = nlohmann::json::object(), errs = nlohmann::json::object();
  for (std::size_t i = 0; i < op_count; ++i) {
    auto name = std::string(op_name(static_cast<Op>(i)));
    ops[name] = by_op_[i];
    errs[name] = errors_[i];
  }
  j["by_op"] = ops;
  j["errors"] = errs;
  const double n = requests_ ? static_cast<double>(requests_) : 1.0;
  j["service_ms_mean"] = service_sum_ms_ / n;
  j["wait_ms_mean"] = wait_sum_ms_ / n;
  auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  j["lateness_us"] = {
      {"p50", us(lateness_.percentile(0.50))},
      {"p99", us(lateness_.percentile(0.99))},
      {"p999", us(lateness_.percentile(0.999))},
      {"max", us(lateness_.max())},
      {"mean", lateness_.mean() / 1000.0},
  };
  return j;
}

void write_json_file(const std::string& path, const nlohmann::json& j) {
  replace_file(path, j.dump(2) + "\n");
}

}  // namespace disksched::diskemu
