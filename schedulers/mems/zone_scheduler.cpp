#include "schedulers/mems/zone_scheduler.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace disksched::mems {

ZoneScheduler::ZoneScheduler(std::string name, InZone policy, ZoneConfig config,
                             const DeviceModel& model)
    : name_(std::move(name)),
      policy_(policy),
      config_(config),
      model_(model),
      grid_(config.zone_x, config.zone_y) {}

std::string ZoneScheduler::spec() const {
  return fmt::format("{}:zone={}x{},pyramid={},merge4_below={},merge16_below={}", name_,
                     config_.zone_x, config_.zone_y, config_.pyramid ? "on" : "off",
                     config_.merge4_below, config_.merge16_below);
}

int ZoneScheduler::level_for(std::size_t n) const {
  if (!config_.pyramid || n >= config_.merge4_below) return 0;
  return n >= config_.merge16_below ? 1 : 2;
}

void ZoneScheduler::add(const Request& r) {
  const Request& held = held_.insert(r);
  const ZoneCell c = cell_of(held);
  const int levels = config_.pyramid ? kLevels : 1;
  for (int l = 0; l < levels; ++l) zones_[l][ZoneGrid::key(c, l)].insert(arrival_key(held));
}

void ZoneScheduler::unzone(const Request& r) {
  const ZoneCell c = cell_of(r);
  const int levels = config_.pyramid ? kLevels : 1;
  for (int l = 0; l < levels; ++l) {
    auto it = zones_[l].find(ZoneGrid::key(c, l));
    it->second.erase(arrival_key(r));
    if (it->second.empty()) zones_[l].erase(it);
  }
}

bool ZoneScheduler::remove(std::uint64_t id) {
  const Request* r = held_.find(id);
  if (r == nullptr) return false;
  unzone(*r);
  held_.take(id);
  return true;
}

bool ZoneScheduler::has_eligible(const Bucket& b) const {
  if (b.empty()) return false;
  if (policy_ != InZone::ArrivalConstrainedSptf) return true;
  return b.begin()->arrival <= zone_start_;
}

std::uint64_t ZoneScheduler::choose(const Bucket& b, const HeadState& head) const {
  if (policy_ == InZone::Fcfs) return b.begin()->id;
  // Walking in arrival order lets ZTSPTF stop at the first late arrival.
  return shortest_positioning(model_, head, held_, b, [&](const ArrivalKey& k) {
           return policy_ == InZone::ArrivalConstrainedSptf && k.arrival > zone_start_;
         }).value_or(b.begin()->id);
}

std::optional<Request> ZoneScheduler::pick(Millis now, const HeadState& head) {
  if (held_.empty()) return std::nullopt;
  const int level = level_for(held_.size());
  Zones& zones = zones_[level];
  Zones::iterator it;
  if (current_ && current_level_ == level) {
    // Stay in the current zone while it has work, else on to the next zone with
    // requests in the traversal order, wrapping around (C-SCAN).
    it = zones.find(*current_);
    if (it == zones.end() || !has_eligible(it->second)) {
      it = zones.upper_bound(*current_);
      if (it == zones.end()) it = zones.begin();
      current_.reset();
    }
  } else {
    // First pick, or the pyramid level changed: start from the zone under the head
    // (where the last request served left it), at this level's granularity.
    ZoneKey from = ZoneGrid::key(grid_.cell(head.cylinder, head.y), level);
    it = zones.lower_bound(from);
    if (it == zones.end()) it = zones.begin();
    current_.reset();
  }
  if (!current_) {  // entering a zone
    current_ = it->first;
    current_level_ = level;
    zone_start_ = std::max(now, it->second.begin()->arrival);
  }
  Request r = held_.take(choose(it->second, head));
  unzone(r);  // may erase the bucket `it` points to
  return r;
}

std::vector<Request> ZoneScheduler::drain() {
  std::vector<Request> out = held_.take_all();
  for (auto& z : zones_) z.clear();
  current_.reset();
  return out;
}

std::vector<ParamSpec> zone_params(bool pyramid_on) {
  ParamSpec zone;
  zone.name = "zone";
  zone.unit = "bits";
  zone.description =
      "zone size, x bit columns by y bits (Hong sec. 7.2: 60x600 at a 0.3 ms seek threshold, "
      "120x1200 at 0.4 ms)";
  zone.pair = true;
  zone.default_value = 120;
  zone.default_value2 = 1200;
  zone.min = 1;
  zone.max = 1e6;
  return {
      zone,
      choice_param("pyramid", "merge neighbouring zones as the queue shrinks (Hong sec. 9)",
                   {"off", "on"}, pyramid_on ? "on" : "off"),
      count_param("merge4_below", "requests",
                  "with pyramid=on, schedule 2x2 zones as one below this queue length (default: "
                  "one request per zone of the 80 that 120x1200 cuts a 2400x2400 sled into)",
                  80, 0, 1e9),
      count_param("merge16_below", "requests",
                  "with pyramid=on, schedule 4x4 zones as one below this queue length (default: "
                  "one request per merged zone of 2x2)",
                  20, 0, 1e9),
  };
}

SpecCheck zone_check(std::string name) {
  return [name](const Params& p, const DeviceModel&) {
    const auto merge4 = static_cast<std::size_t>(p.number("merge4_below"));
    const auto merge16 = static_cast<std::size_t>(p.number("merge16_below"));
    if (merge16 > merge4)
      throw SpecError(fmt::format(
          "{}: merge16_below={} must not exceed merge4_below={} (zones grow as the queue shrinks)",
          name, merge16, merge4));
  };
}

SchedulerFactory zone_factory(std::string name, InZone policy) {
  return [name, policy](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
    ZoneConfig c;
    std::tie(c.zone_x, c.zone_y) = p.pair("zone");
    c.pyramid = p.choice("pyramid") == "on";
    c.merge4_below = static_cast<std::size_t>(p.number("merge4_below"));
    c.merge16_below = static_cast<std::size_t>(p.number("merge16_below"));
    return std::make_unique<ZoneScheduler>(name, policy, c, m);
  };
}

}  // namespace disksched::mems
