// The engine behind Hong's zone schedulers (Hong sec. 6): zones visited in the C-SCAN
// order of Fig. 3, every pending request of the current zone served before the next
// zone with requests, empty zones skipped. What differs is the order inside a zone:
//   ZSPTF  - shortest positioning time first (model.positioning_ms from the head);
//   ZTSPTF - the same, but only among requests that arrived before the scheduler began
//            the zone, which bounds a zone visit to the requests queued at its start;
//   ZFCFS  - arrival order.
// With pyramiding (Hong sec. 9) the zones grow as the queue shrinks: below
// `merge4_below` queued requests 2x2 neighbouring zones are scheduled as one, below
// `merge16_below` 4x4 (16 zones, Hong's "up to 16").
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>

#include "predictor/device_model.hpp"
#include "schedulers/mems/zone_grid.hpp"
#include "schedulers/registry.hpp"
#include "schedulers/seek/ordering.hpp"

namespace disksched::mems {

enum class InZone { Sptf, ArrivalConstrainedSptf, Fcfs };

struct ZoneConfig {
  double zone_x = 120, zone_y = 1200;  // bits
  bool pyramid = false;
  std::size_t merge4_below = 80;   // requests
  std::size_t merge16_below = 20;  // requests
};

class ZoneScheduler final : public Scheduler {
 public:
  ZoneScheduler(std::string name, InZone policy, ZoneConfig config, const DeviceModel& model);

  std::string spec() const override;
  void add(const Request& r) override;
  bool remove(std::uint64_t id) override;
  std::optional<Request> pick(Millis now, const HeadState& head) override;
  std::size_t size() const override { return held_.size(); }
  std::vector<Request> drain() override;

  // The pyramid level used at this queue length (0 without pyramiding).
  int level_for(std::size_t queue_length) const;
  const ZoneGrid& grid() const { return grid_; }

 private:
  using Bucket = std::set<ArrivalKey>;
  using Zones = std::map<ZoneKey, Bucket>;
  static constexpr int kLevels = 3;

  ZoneCell cell_of(const Request& r) const { return grid_.cell(r.loc.cylinder, r.loc.y); }
  void unzone(const Request& r);
  bool has_eligible(const Bucket& b) const;
  std::uint64_t choose(const Bucket& b, const HeadState& head) const;

  std::string name_;
  InZone policy_;
  ZoneConfig config_;
  const DeviceModel& model_;
  ZoneGrid grid_;
  HeldRequests held_;
  std::array<Zones, kLevels> zones_;  // the same requests, zoned at each pyramid level
  // The zone being served: its key, the level it was cut at, when it was begun.
  std::optional<ZoneKey> current_;
  int current_level_ = 0;
  Millis zone_start_ = 0;
};

// The parameters every zone scheduler declares (zone, pyramid, merge4_below,
// merge16_below) and a factory for one in-zone policy.
std::vector<ParamSpec> zone_params(bool pyramid_on = false);
// Zone sizes that merge as the queue shrinks: merge16_below <= merge4_below.
SpecCheck zone_check(std::string name);
SchedulerFactory zone_factory(std::string name, InZone policy);

}  // namespace disksched::mems
