#include "bench/validate/validate_replay.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "bench/validate/demerit.hpp"
#include "emulator/device/drive_queue.hpp"

namespace disksched {

std::vector<ValidateSample> replay_validate(const DeviceModel& model, const TraceData& trace,
                                            const DeviceOptions& options) {
  VirtualDevice device(model, options);
  std::vector<ValidateSample> out;
  out.reserve(trace.records.size());
  Millis issue = 0.0;
  for (const auto& r : trace.records) {
    ValidateSample s;
    s.index = out.size() + 1;
    s.op = r.op;
    s.buffer = r.buffer;
    s.lba = r.offset / 512;
    s.blocks = r.length / 512;
    s.issue_ms = issue;
    s.measured_ms = r.measured_ms;
    Service served;
    try {
      served = device.serve(issue, r.op, r.offset, r.length);
    } catch (const ModelError& e) {
      throw ModelError(fmt::format("{}: request {} (block {}, {} blocks): {}", trace.path,
                                   s.index, s.lba, s.blocks, e.what()));
    }
    s.simulated_ms = served.completion_ms - served.arrival_ms;
    s.simulated_hit = served.hit;
    s.cost = served.cost;
    const Location where = model.locate(r.offset / model.sector_bytes(),
                                        std::max<std::uint32_t>(1, r.length / model.sector_bytes()), r.op);
    s.cylinder = where.cylinder;
    s.head = where.head;
    issue = served.completion_ms + r.think_ms;
    out.push_back(s);
  }
  return out;
}

namespace {

// Measured requests in flight at the device at each one's issue, itself included: those
// issued by then (ties too) less those completed by then.
std::vector<std::size_t> in_flight(const std::vector<Millis>& issue, const std::vector<Millis>& done) {
  std::vector<Millis> starts = issue, ends = done;
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::vector<std::size_t> out;
  out.reserve(issue.size());
  for (const Millis t : issue) {
    const auto begun = std::upper_bound(starts.begin(), starts.end(), t) - starts.begin();
    const auto ended = std::upper_bound(ends.begin(), ends.end(), t) - ends.begin();
    out.push_back(static_cast<std::size_t>(std::max<std::ptrdiff_t>(1, begun - ended)));
  }
  return out;
}

}  // namespace

OpenReplay replay_open(const DeviceModel& model, const TraceData& trace,
                       const OpenReplayOptions& replay, const DeviceOptions& options) {
  const auto& rs = trace.records;
  if (trace.measured_records() == 0)
    throw std::invalid_argument(fmt::format("{}: no request carries measured times", trace.path));
  // When each request reached the device: measured ones at their issue, others on arrival.
  std::vector<Millis> at(rs.size());
  std::vector<Millis> m_issue, m_done;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    at[i] = rs[i].time_ms + rs[i].issued_ms.value_or(0.0);
    if (rs[i].has_measured_times()) {
      m_issue.push_back(at[i]);
      m_done.push_back(rs[i].time_ms + *rs[i].done_ms);
    }
  }
  OpenReplay out;
  const auto depths = in_flight(m_issue, m_done);
  for (const auto d : depths) {
    out.depth_max = std::max(out.depth_max, d);
    out.depth_mean += static_cast<double>(d);
  }
  out.depth_mean /= static_cast<double>(depths.size());
  out.depth = replay.depth > 0 ? replay.depth : static_cast<unsigned>(out.depth_max);
  std::vector<std::size_t> order(rs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return at[a] < at[b]; });

  VirtualDevice device(model, options);
  DriveQueue queue(device, DriveQueueOptions{.depth = out.depth, .policy = replay.firmware});
  std::vector<ValidateSample> by_record(rs.size());
  auto retire = [&] {
    const Millis t = queue.next_completion_ms();
    const DriveQueue::Served served = queue.complete();
    ValidateSample& s = by_record[served.tag];
    s.simulated_ms = served.service.completion_ms - served.service.arrival_ms;
    s.simulated_wait_ms = served.start_ms - served.service.arrival_ms;
    s.simulated_hit = served.service.hit;
    s.cost = served.service.cost;
    queue.start(t);
  };
  for (std::size_t k = 0; k < order.size();) {
    const Millis t = at[order[k]];
    while (queue.next_completion_ms() <= t) retire();
    // Every request of the instant is held before the firmware picks.
    for (; k < order.size() && at[order[k]] == t; ++k) {
      const std::size_t i = order[k];
      const TraceRecord& r = rs[i];
      ValidateSample& s = by_record[i];
      s.index = i + 1;
      s.op = r.op;
      s.origin = r.origin;
      s.lba = r.offset / 512;
      s.blocks = r.length / 512;
      s.issue_ms = t;
      s.measured_ms = r.has_measured_times() ? *r.done_ms - *r.issued_ms : 0.0;
      try {
        queue.submit(i, t, r.op, r.offset, r.length);
        const Location where = model.locate(r.offset / model.sector_bytes(),
                                            std::max<std::uint32_t>(1, r.length / model.sector_bytes()), r.op);
        s.cylinder = where.cylinder;
        s.head = where.head;
      } catch (const ModelError& e) {
        throw ModelError(fmt::format("{}: request {} (block {}, {} blocks): {}", trace.path,
                                     s.index, s.lba, s.blocks, e.what()));
      }
    }
    queue.start(t);
  }
  while (!queue.idle()) retire();
  std::size_t m = 0;
  for (const std::size_t i : order) {
    if (!rs[i].has_measured_times()) {
      ++out.unmeasured;
      continue;
    }
    by_record[i].in_flight = depths[m++];
    out.samples.push_back(by_record[i]);
  }
  return out;
}

ValidateClass compare(const std::string& name, const std::vector<ValidateSample>& samples) {
  ValidateClass c;
  c.name = name;
  c.requests = samples.size();
  if (samples.empty()) return c;
  std::vector<double> measured, simulated;
  measured.reserve(samples.size());
  simulated.reserve(samples.size());
  for (const auto& s : samples) {
    measured.push_back(s.measured_ms);
    simulated.push_back(s.simulated_ms);
    c.mean_measured_ms += s.measured_ms;
    c.mean_simulated_ms += s.simulated_ms;
    c.simulated_hits += s.simulated_hit ? 1 : 0;
  }
  c.mean_measured_ms /= static_cast<double>(samples.size());
  c.mean_simulated_ms /= static_cast<double>(samples.size());
  c.demerit_ms = demerit(measured, simulated);
  c.demerit_grid_ms = demerit_grid(measured, simulated);
  c.demerit_histogram_ms = demerit_histogram(measured, simulated);
  return c;
}

std::vector<ValidateClass> compare_by_class(const std::vector<ValidateSample>& samples) {
  auto is_read = [](const ValidateSample& s) { return s.op == Op::Read; };
  bool hit = false, miss = false;
  for (const auto& s : samples)
    if (is_read(s)) {
      hit = hit || s.buffer == BufferFlag::Hit;
      miss = miss || s.buffer == BufferFlag::Miss;
    }
  const bool split = hit && miss;
  std::vector<ValidateSample> read_hit, read_miss, read, write;
  for (const auto& s : samples) {
    if (!is_read(s))
      write.push_back(s);
    else if (!split)
      read.push_back(s);
    else if (s.buffer == BufferFlag::Hit)
      read_hit.push_back(s);
    else
      read_miss.push_back(s);
  }
  std::vector<ValidateClass> out;
  for (const auto& [name, group] : {std::pair{"read hit", &read_hit}, std::pair{"read miss", &read_miss},
                                    std::pair{"read", &read}, std::pair{"write", &write}})
    if (!group->empty()) out.push_back(compare(name, *group));
  return out;
}

std::vector<ValidateClass> compare_by_op_and_origin(const std::vector<ValidateSample>& samples) {
  const bool origins = std::any_of(samples.begin(), samples.end(),
                                   [](const ValidateSample& s) { return s.origin != Origin::None; });
  // Keyed by (op, origin) so that the classes come in a fixed order.
  std::map<std::pair<Op, Origin>, std::vector<ValidateSample>> by_op, by_both;
  for (const auto& s : samples) {
    by_op[{s.op, Origin::None}].push_back(s);
    if (origins) by_both[{s.op, s.origin}].push_back(s);
  }
  std::vector<ValidateClass> out;
  for (const auto& [key, group] : by_op) out.push_back(compare(std::string(op_name(key.first)), group));
  for (const auto& [key, group] : by_both)
    out.push_back(compare(fmt::format("{} {}", op_name(key.first), origin_name(key.second)), group));
  return out;
}

std::vector<ValidateSample> worst_requests(const std::vector<ValidateSample>& samples,
                                           std::size_t n) {
  std::vector<ValidateSample> out = samples;
  auto gap = [](const ValidateSample& s) { return std::abs(s.measured_ms - s.simulated_ms); };
  std::stable_sort(out.begin(), out.end(),
                   [&](const ValidateSample& a, const ValidateSample& b) { return gap(a) > gap(b); });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace disksched
