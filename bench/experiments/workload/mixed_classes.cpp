#include "bench/experiments/workload/mixed_classes.hpp"

#include <limits>
#include <vector>

#include <fmt/format.h>

namespace disksched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class MixedStream final : public ClosedStream {
 public:
  MixedStream(const DeviceExtent& dev, const Workload& w, std::uint64_t seed)
      : capacity_(dev.capacity_bytes / dev.sector_bytes * dev.sector_bytes),
        sector_(dev.sector_bytes),
        fg_(count(w, "fg")), bg_(count(w, "bg")), writers_(count(w, "writers")),
        fg_size_(size(w, "fg-size")), bg_size_(size(w, "bg-size")),
        writer_size_(size(w, "writer-size")),
        fg_think_(w.number("fg-think")), writer_think_(w.number("writer-think")) {
    if (fg_ + bg_ + writers_ == 0)
      throw WorkloadError("workload 'mixed': no clients: give fg, bg or writers above 0");
    for (std::uint32_t s : {fg_size_, bg_size_, writer_size_})
      if (s % sector_ != 0 || s > capacity_)
        throw WorkloadError(fmt::format(
            "workload 'mixed': size {} is not a whole number of {}-byte sectors within the device",
            s, sector_));
    for (std::size_t i = 0; i < population(); ++i) rngs_.emplace_back(Rng::derive(seed, i));
  }

  std::size_t population() const override { return fg_ + bg_ + writers_; }

  std::optional<ClosedStep> next(std::size_t client) override {
    Rng& rng = rngs_.at(client);
    ClosedStep s;
    if (client < fg_) {
      s.cls = IoClass::TimeCritical;
      s.think_ms = fg_think_;
      s.length = fg_size_;
      s.offset = random_start(rng, fg_size_);
    } else if (client < fg_ + bg_) {
      s.cls = IoClass::TimeNoncritical;
      s.length = bg_size_;
      if (scrub_ + bg_size_ > capacity_) scrub_ = 0;
      s.offset = scrub_;
      scrub_ += bg_size_;
    } else {
      s.cls = IoClass::TimeNoncritical;
      s.op = Op::Write;
      s.think_ms = writer_think_;
      s.length = writer_size_;
      s.offset = random_start(rng, writer_size_);
    }
    return s;
  }

 private:
  static std::size_t count(const Workload& w, const char* key) {
    return static_cast<std::size_t>(w.number(key));
  }
  static std::uint32_t size(const Workload& w, const char* key) {
    return static_cast<std::uint32_t>(w.number(key));
  }
  // A start aligned to the request's own size (a file system's block), within the device.
  std::uint64_t random_start(Rng& rng, std::uint32_t length) const {
    return rng.below((capacity_ - length) / length + 1) * length;
  }

  std::uint64_t capacity_;
  std::uint32_t sector_;
  std::size_t fg_, bg_, writers_;
  std::uint32_t fg_size_, bg_size_, writer_size_;
  Millis fg_think_, writer_think_;
  std::vector<Rng> rngs_;
  std::uint64_t scrub_ = 0;  // the scrub's next offset
};

}  // namespace

const std::vector<SpecParam>& mixed_params() {
  static const std::vector<SpecParam> params = {
      count_param("fg", "", "foreground clients (time-critical random reads, one outstanding each)",
                  1, 0, 1e4),
      number_param("fg-size", "bytes", "foreground request size", 4096, 512, 1 << 30),
      number_param("fg-think", "ms", "foreground think time between a completion and the next", 0,
                   0, kInf),
      count_param("bg", "", "scrub depth (time-noncritical sequential reads)", 8, 0, 1e4),
      number_param("bg-size", "bytes", "scrub request size", 1 << 20, 512, 1 << 30),
      count_param("writers", "", "random writers (time-noncritical)", 0, 0, 1e4),
      number_param("writer-size", "bytes", "random write size", 4096, 512, 1 << 30),
      number_param("writer-think", "ms", "a writer's think time", 0, 0, kInf),
  };
  return params;
}

std::unique_ptr<ClosedStream> make_mixed_stream(const DeviceExtent& dev, const Workload& w,
                                                std::uint64_t seed) {
  return std::make_unique<MixedStream>(dev, w, seed);
}

}  // namespace disksched
