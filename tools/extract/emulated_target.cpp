#include "tools/extract/emulated_target.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace disksched::extract {

EmulatedTarget::EmulatedTarget(std::unique_ptr<DeviceModel> model, DriveQueueOptions queue, HostPath host)
    : VirtualClockTarget(1000.0),  // somewhere arbitrary: nothing may depend on t = 0
      device_(std::move(model)),
      queue_(device_, std::move(queue)),
      host_(host),
      rng_(host.seed),
      sector_bytes_(device_.model().sector_bytes()),
      sectors_(device_.model().capacity_bytes() / device_.model().sector_bytes()) {}

std::string EmulatedTarget::describe() const {
  return fmt::format("emulated:{} (drive queue {}, {})", device_.model().name(), queue_.options().depth,
                     queue_.policy());
}

Millis EmulatedTarget::seen_after() {
  Millis d = host_.completion_ms;
  if (host_.jitter_ms > 0) d += std::exponential_distribution<double>(1.0 / host_.jitter_ms)(rng_);
  return d;
}

std::vector<ProbeResult> EmulatedTarget::closed_loop(std::span<const Command> cmds, unsigned depth) {
  if (depth == 0) throw std::invalid_argument("closed loop: depth must be >= 1");
  std::vector<ProbeResult> out(cmds.size());
  // Commands on their way to the drive, earliest first: (arrival, index).
  using Arrival = std::pair<Millis, std::size_t>;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> arriving;
  std::size_t next = 0, done = 0;
  auto issue = [&](Millis at) {
    out[next].issue_ms = at;
    arriving.push({at + host_.issue_ms, next});
    ++next;
  };
  while (next < cmds.size() && next < depth) issue(now_);
  Millis last_seen = now_;
  while (done < cmds.size()) {
    const Millis ta = arriving.empty() ? std::numeric_limits<Millis>::infinity() : arriving.top().first;
    const Millis tc = queue_.next_completion_ms();
    if (arriving.empty() && !queue_.in_service())
      throw std::logic_error("closed loop: the drive holds commands but serves none");
    if (ta <= tc) {
      const std::size_t i = arriving.top().second;
      arriving.pop();
      const Command& c = cmds[i];
      const std::uint64_t off = c.lba * sector_bytes_;
      const auto len = static_cast<std::uint32_t>(std::uint64_t{c.count} * sector_bytes_);
      queue_.submit(i, ta, c.op, c.op == Op::Flush ? 0 : off, c.op == Op::Flush ? 0 : len, {}, c.fua);
      queue_.start(ta);
      continue;
    }
    const DriveQueue::Served s = queue_.complete();
    queue_.start(tc);
    const Millis seen = tc + seen_after();
    out[s.tag].complete_ms = seen;
    last_seen = std::max(last_seen, seen);
    ++done;
    if (next < cmds.size()) issue(seen);
  }
  now_ = last_seen;
  return out;
}

ProbeResult EmulatedTarget::one(const Command& c) { return closed_loop(std::span(&c, 1), 1).front(); }

ProbeResult EmulatedTarget::read(std::uint64_t lba, std::uint32_t count) { return one({Op::Read, lba, count}); }

ProbeResult EmulatedTarget::write(std::uint64_t lba, std::uint32_t count) {
  return one({Op::Write, lba, count, true});
}

std::optional<ProbeResult> EmulatedTarget::write_buffered(std::uint64_t lba, std::uint32_t count) {
  return one({Op::Write, lba, count, false});
}

ProbeResult EmulatedTarget::flush() { return one({Op::Flush, 0, 0}); }

std::optional<Millis> EmulatedTarget::null_round_trip_ms() {
  const Millis rt = host_.issue_ms + seen_after();
  now_ += rt;
  return rt;
}

}  // namespace disksched::extract
