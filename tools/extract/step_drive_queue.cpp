// The drive-queue step (drive_steps.hpp): random 4 KiB reads over the whole device as a
// closed loop at 1, 2, 4, ... commands in flight, the same places at every depth (so
// the depths differ by what the drive does with them, not by the places drawn).
// Throughput is counted from the depth-th completion to the last (the loop full). A
// drive that gains more than 15 % at 32 in flight over 1 reorders what it holds; its
// depth is the last d that gains 4 % or more over d / 2 (beyond its depth the commands
// wait at the host in order, and more in flight gains nothing). Without reordering the queue shows nothing, and depth 1 is what
// the host can use.
#include <algorithm>
#include <cmath>

#include "tools/extract/drive_probe_util.hpp"

namespace disksched::extract {
namespace {

using drive::latency;
using drive::Session;

struct DepthRun {
  double iops = 0.0;
  Millis p99_ms = 0.0, max_ms = 0.0;
};

DepthRun run_depth(DriveTarget& d, const std::vector<Command>& cmds, unsigned depth) {
  const std::vector<ProbeResult> res = d.closed_loop(cmds, depth);
  std::vector<Millis> done, lat;
  for (const ProbeResult& r : res) {
    done.push_back(r.complete_ms);
    lat.push_back(latency(r));
  }
  std::sort(done.begin(), done.end());
  std::sort(lat.begin(), lat.end());
  DepthRun out;
  const std::size_t from = std::min<std::size_t>(depth, done.size() - 1) - (depth > 0 ? 1 : 0);
  const Millis span = done.back() - done[from];
  out.iops = span > 0 ? static_cast<double>(done.size() - 1 - from) / span * 1000.0 : 0.0;
  out.p99_ms = lat[static_cast<std::size_t>(0.99 * static_cast<double>(lat.size() - 1))];
  out.max_ms = lat.back();
  return out;
}

}  // namespace

QueueFindings probe_drive_queue(ProbeTarget& t, DriveTarget* d, const DriveStepOptions& o) {
  QueueFindings q;
  if (!d) {
    q.why = "this target holds one command at a time: the drive's queue cannot be seen through it";
    return q;
  }
  Session s(t, o, 3);
  std::vector<Command> cmds(static_cast<std::size_t>(std::max(64, o.queue_requests)));
  for (Command& c : cmds) c = Command{Op::Read, s.place(s.req), s.req};
  std::vector<DepthRun> runs;
  for (unsigned depth = 1; depth <= o.max_depth && !s.over(); depth *= 2) {
    runs.push_back(run_depth(*d, cmds, depth));
    q.iops.push_back({depth, runs.back().iops});
    if (o.tick) o.tick(static_cast<double>(runs.size()) / (std::log2(o.max_depth) + 1));
  }
  q.measured = true;
  auto at = [&](unsigned depth) -> const DepthRun* {
    for (std::size_t i = 0; i < q.iops.size(); ++i)
      if (q.iops[i].first == depth) return &runs[i];
    return nullptr;
  };
  const DepthRun* one = at(1);
  const DepthRun* deep = at(32) ? at(32) : &runs.back();
  q.qd32_over_qd1 = one && one->iops > 0 ? deep->iops / one->iops : 1.0;
  q.reorders = q.qd32_over_qd1 > 1.15;
  std::size_t k = 0;
  if (q.reorders) {
    for (std::size_t i = 1; i < runs.size(); ++i)
      if (runs[i].iops >= 1.04 * runs[i - 1].iops) k = i;
    q.depth_at_least = k + 1 == runs.size();
  }
  q.depth = q.iops[k].first;
  q.p99_ms = runs[k].p99_ms;
  q.max_ms = runs[k].max_ms;
  return q;
}

DriveFindings probe_drive(ProbeTarget& t, const DriveStepOptions& o) {
  DriveFindings f;
  auto* d = dynamic_cast<DriveTarget*>(&t);
  f.read = probe_read_cache(t, o);
  f.write = probe_write_cache(t, d, o);
  f.queue = probe_drive_queue(t, d, o);
  return f;
}

}  // namespace disksched::extract
