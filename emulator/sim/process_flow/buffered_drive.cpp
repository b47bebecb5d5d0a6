#include "emulator/sim/process_flow/buffered_drive.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace disksched::flow {

BufferedDrive::BufferedDrive(VirtualDevice& device, std::uint32_t buffer_bytes)
    : device_(device), buffer_sectors_(buffer_bytes / device.model().sector_bytes()) {}

HeadState BufferedDrive::predict(Millis now) const {
  HeadState h = device_.head();
  h.time_ms = std::max({now, h.time_ms, busy_until_});
  return h;
}

Millis BufferedDrive::ready_ms(std::uint64_t end) const {
  if (end <= filled_lba_) return stream_from_.time_ms;
  if (!streaming_ || end > buf_lba_ + buffer_sectors_) return std::numeric_limits<Millis>::infinity();
  const std::uint32_t sb = device_.model().sector_bytes();
  const Cost c = device_.model().service(stream_from_, Op::Read, filled_lba_ * sb,
                                         static_cast<std::uint32_t>((end - filled_lba_) * sb));
  return stream_from_.time_ms + c.seek_ms + c.rotation_ms + c.transfer_ms;
}

void BufferedDrive::stop_streaming(Millis t) {
  if (!streaming_) return;
  // The last sector read by `t`: ready_ms grows with the end, so bisect.
  std::uint64_t lo = filled_lba_, hi = buf_lba_ + buffer_sectors_;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (ready_ms(mid) <= t) lo = mid; else hi = mid - 1;
  }
  filled_lba_ = lo;
  streaming_ = false;
}

const Prediction& BufferedDrive::dispatched(std::uint64_t id, Millis now, Op op,
                                            std::uint64_t offset, std::uint32_t length,
                                            std::span<const std::uint64_t> stops) {
  const DeviceModel& m = device_.model();
  const std::uint32_t sb = m.sector_bytes();
  const std::uint64_t lba = offset / sb;
  const std::uint64_t end = (offset + length + sb - 1) / sb;
  InService s;
  s.id = id;
  s.prediction.dispatch_ms = now;
  s.prediction.idle_start = held_.empty();
  s.start_ms = predict(now).time_ms;
  const Millis ready = (op == Op::Read && have_buffer_ && stops.empty() && lba >= buf_lba_)
                           ? ready_ms(end) : std::numeric_limits<Millis>::infinity();
  if (ready < std::numeric_limits<Millis>::infinity()) {
    s.hit = true;
    s.completion_ms = std::max(s.start_ms, ready);
    s.prediction.from = predict(now);
    s.prediction.cost.end = s.prediction.from;
    s.prediction.cost.transfer_ms = s.completion_ms - s.start_ms;
  } else {
    stop_streaming(s.start_ms);
    for (const std::uint64_t stop : stops) device_.serve(s.start_ms, Op::Read, stop * sb, sb);
    const HeadState from = predict(s.start_ms);
    const Service svc = device_.serve(from.time_ms, op, offset, length);
    s.completion_ms = svc.completion_ms;
    s.seek_cylinders = std::llabs(m.locate(lba, 1, op).cylinder - from.cylinder);
    s.seek_ms = svc.cost.seek_ms;
    s.prediction.from = from;
    s.prediction.cost = svc.cost;
    if (op == Op::Read && buffer_sectors_ > 0) {
      have_buffer_ = true;
      streaming_ = end - lba < buffer_sectors_;
      buf_lba_ = lba;
      filled_lba_ = end;
      stream_from_ = device_.head();
    } else if (have_buffer_ && lba < filled_lba_ && end > buf_lba_) {
      have_buffer_ = false;  // a write over buffered sectors
    }
  }
  busy_until_ = s.completion_ms;
  held_.push_back(s);
  return held_.back().prediction;
}

const Prediction& BufferedDrive::completed(std::uint64_t id, Millis /*now*/, bool /*ok*/) {
  if (held_.empty() || held_.front().id != id)
    throw std::invalid_argument("buffered drive: request " + std::to_string(id) +
                                " is not the next to complete");
  completed_ = held_.front().prediction;
  held_.pop_front();
  return completed_;
}

}  // namespace disksched::flow
