#include "bench/validate/validate_replay.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "bench/validate/demerit.hpp"

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
