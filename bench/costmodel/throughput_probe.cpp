#include "bench/costmodel/throughput_probe.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "bench/experiments/sweep/experiment.hpp"
#include "bench/experiments/workload/workload.hpp"
#include "predictor/drive_cache.hpp"

namespace disksched {

namespace {

std::string size_text(std::uint64_t bytes) {
  if (bytes % (1u << 20) == 0) return fmt::format("{}m", bytes >> 20);
  if (bytes % 1024 == 0) return fmt::format("{}k", bytes >> 10);
  return fmt::format("{}", bytes);
}

}  // namespace

std::string Load::name() const {
  const char* kind = sequential ? (write ? "write" : "read") : (write ? "randwrite" : "randread");
  return fmt::format("{} {} QD{}", kind, size_text(bytes), depth);
}

std::string Load::workload_spec() const {
  // A sequential load is one stream `depth` deep, as fio's iodepth (not depth streams).
  return fmt::format("closed:n={},think=0ms,p={},size={},reads={}{}", depth, sequential ? 1 : 0,
                     bytes, write ? 0 : 1, sequential ? ",stream=shared" : "");
}

ThroughputProbe::ThroughputProbe(const DeviceModel& model, ProbeOptions opt)
    : model_(model), opt_(opt) {}

std::uint64_t ThroughputProbe::warmup_for(const Load& load) const {
  std::uint64_t warm = std::max<std::uint64_t>(200, 4 * load.depth);
  if (const DriveParams* d = drive_params_of(model_); d && load.write) {
    // Twice what the buffer holds, by bytes (writes that combine into one segment fill
    // it by bytes, scattered ones perhaps sooner), so the load is measured at the rate
    // the media takes it, not the bus.
    const std::uint64_t buffer =
        d->cache.write_buffer()
            ? d->cache.write_buffer_bytes
            : std::uint64_t{d->cache.segments} * d->cache.segment_sectors * model_.sector_bytes();
    const std::uint64_t by_bytes = 2 * (buffer / std::max<std::uint64_t>(load.bytes, 1) + 1);
    warm = std::max(warm, std::min<std::uint64_t>(by_bytes, 200000) + 2 * load.depth);
  }
  return warm;
}

std::uint64_t ThroughputProbe::measured_for(const Load& load) const {
  // Large requests cost the simulator per sector: as many bytes as 64 KiB requests
  // would move, and at least 50 requests.
  constexpr std::uint64_t kLarge = 64 * 1024;
  if (load.bytes <= kLarge) return opt_.requests;
  return std::max<std::uint64_t>(50, opt_.requests * kLarge / load.bytes);
}

LoadResult ThroughputProbe::run(const Load& load) const {
  const Workload w = Workload::parse(load.workload_spec());
  SimConfig cfg;
  cfg.depth = load.depth;
  cfg.warmup = warmup_for(load);
  cfg.measured = measured_for(load);
  if (opt_.drive_queue > 1) {
    DriveQueueOptions q;
    q.depth = opt_.drive_queue;
    q.policy = "satf";
    q.age_limit_ms = 1000.0;  // as diskemu's and `sim`'s default firmware
    cfg.drive_queue = q;
  }
  const RunSummary s = run_once(model_, w, "fcfs", 0.0, opt_.seed, cfg);
  LoadResult r;
  r.iops = s.throughput_per_s;
  r.bytes_per_s = s.throughput_per_s * static_cast<double>(load.bytes);
  r.mean_ms = s.mean_ms;
  r.p99_ms = s.p99_ms;
  return r;
}

}  // namespace disksched
