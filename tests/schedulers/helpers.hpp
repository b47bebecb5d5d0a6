// Shared by the scheduler tests: hand-built requests, a small MEMS-like model for the
// zone schedulers until (or when) the real one is not available, and a driver that
// empties a scheduler the way a device would.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "predictor/device_model.hpp"
#include "predictor/disk_model.hpp"
#include "schedulers/registry.hpp"
#include "schedulers/request.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched::testing {

// A non-rotating device shaped like Hong's sled: 2400 x columns of 2400 y bits, one
// 512-byte sector every 80 y bits (30 sectors per column), laid out column by column.
// Positioning is max(t_x, t_y) (Hong eq. 1) with simple monotone curves: enough for
// tests of zone order and SPTF choice, nothing more.
class FakeMems final : public DeviceModel {
 public:
  static constexpr std::int64_t kColumns = 2400;
  static constexpr std::uint32_t kSectorsPerColumn = 30;
  static constexpr double kBitsPerSector = 80;

  std::string_view kind() const override { return "mems"; }
  std::string name() const override { return "fake-mems"; }
  std::uint64_t capacity_bytes() const override {
    return static_cast<std::uint64_t>(kColumns) * kSectorsPerColumn * 512;
  }
  std::uint32_t sector_bytes() const override { return 512; }
  std::int64_t cylinders() const override { return kColumns; }
  bool rotational() const override { return false; }
  Location locate(std::uint64_t lba, std::uint32_t sectors, Op) const override {
    if ((lba + sectors) * 512 > capacity_bytes()) throw ModelError("fake-mems: beyond the device");
    Location l;
    l.lba = lba;
    l.sectors = sectors;
    l.cylinder = static_cast<std::int64_t>(lba / kSectorsPerColumn);
    l.y = static_cast<double>(lba % kSectorsPerColumn) * kBitsPerSector;
    l.y_dir = (l.cylinder & 1) == 0 ? +1 : -1;
    return l;
  }
  Millis positioning_ms(const HeadState& from, const Location& to) const override {
    double dx = std::abs(static_cast<double>(to.cylinder - from.cylinder));
    double dy = std::abs(to.y - from.y);
    Millis tx = dx == 0 ? 0.0 : 0.215 + 0.01 * std::sqrt(dx);
    Millis ty = 0.05 + 0.0002 * dy + (from.y_dir != to.y_dir ? 0.1 : 0.0);
    return std::max(tx, ty);
  }
  Millis seek_ms(std::int64_t d) const override {
    return d == 0 ? 0.0 : 0.215 + 0.01 * std::sqrt(static_cast<double>(std::abs(d)));
  }
  Cost service(const HeadState& from, Op op, std::uint64_t offset,
               std::uint32_t length) const override {
    std::uint32_t n = std::max<std::uint32_t>(1, (length + 511) / 512);
    Location l = locate(offset / 512, n, op);
    Cost c;
    c.seek_ms = positioning_ms(from, l);
    c.transfer_ms = 0.1 * n;
    c.end = from;
    c.end.time_ms = from.time_ms + c.service_ms();
    c.end.cylinder = l.cylinder;
    c.end.y = l.y + kBitsPerSector * n;
    c.end.y_dir = l.y_dir;
    return c;
  }
};

// The real MEMS model when it loads, else the fake (with a warning naming why).
inline std::unique_ptr<DeviceModel> mems_model_or_fake() {
  try {
    return load_model("mems");
  } catch (const std::exception& e) {
    WARN("using the fake MEMS model: " << e.what());
    return std::make_unique<FakeMems>();
  }
}

inline std::unique_ptr<DeviceModel> hp97560() { return load_model("hp97560"); }

// A request at (cylinder, head, sector) of a disk model, arriving at `arrival`.
inline Request disk_request(const DiskModel& m, std::uint64_t id, std::int64_t cylinder,
                            Millis arrival, std::int32_t head = 0, std::uint32_t sector = 0,
                            IoClass cls = IoClass::TimeNoncritical) {
  Request r;
  r.id = id;
  r.arrival_ms = arrival;
  r.cls = cls;
  std::uint64_t lba = m.chs_to_lba(Chs{cylinder, head, sector});
  r.offset = lba * m.sector_bytes();
  r.length = 8 * 1024;
  r.loc = m.locate(lba, r.length / m.sector_bytes(), r.op);
  return r;
}

// A request at LBA `lba` of any model.
inline Request lba_request(const DeviceModel& m, std::uint64_t id, std::uint64_t lba,
                           Millis arrival, IoClass cls = IoClass::TimeNoncritical,
                           std::uint32_t sectors = 16) {
  Request r;
  r.id = id;
  r.arrival_ms = arrival;
  r.cls = cls;
  r.offset = lba * m.sector_bytes();
  r.length = sectors * m.sector_bytes();
  r.loc = m.locate(lba, sectors, r.op);
  return r;
}

// A request whose location is set by hand (for orderings that only read the Location).
inline Request placed(std::uint64_t id, std::int64_t cylinder, Millis arrival,
                      std::uint64_t lba = 0, double y = 0,
                      IoClass cls = IoClass::TimeNoncritical) {
  Request r;
  r.id = id;
  r.arrival_ms = arrival;
  r.cls = cls;
  r.loc.cylinder = cylinder;
  r.loc.lba = lba;
  r.loc.sectors = 16;
  r.loc.y = y;
  r.loc.y_dir = (cylinder & 1) == 0 ? +1 : -1;
  return r;
}

// Where the head is once `r` has been served, without a timing model: on its cylinder
// (MEMS: column and y).
inline HeadState head_at(const Request& r, Millis t = 0) {
  HeadState h;
  h.time_ms = t;
  h.cylinder = r.loc.cylinder;
  h.head = r.loc.head;
  h.y = r.loc.y;
  h.y_dir = r.loc.y_dir;
  return h;
}

// The head on cylinder `c` at t = 0, head 0.
inline HeadState at_cylinder(std::int64_t c) {
  HeadState h;
  h.cylinder = c;
  return h;
}

// Picks until the scheduler is empty, moving the head onto each request picked (no
// time passes: `now` stays put). Returns the ids in dispatch order.
inline std::vector<std::uint64_t> pick_all(Scheduler& s, HeadState head, Millis now = 0) {
  std::vector<std::uint64_t> order;
  while (auto r = s.pick(now, head)) {
    order.push_back(r->id);
    head = head_at(*r, head.time_ms);
  }
  return order;
}

// Picks until empty, letting `model` serve each request from the head's real state and
// advancing time to its end.
inline std::vector<std::uint64_t> serve_all(Scheduler& s, const DeviceModel& model,
                                            HeadState head) {
  std::vector<std::uint64_t> order;
  while (auto r = s.pick(head.time_ms, head)) {
    order.push_back(r->id);
    head = model.service(head, r->op, r->offset, r->length).end;
    s.completed(*r, head.time_ms);
  }
  return order;
}

inline std::unique_ptr<Scheduler> make(const std::string& spec, const DeviceModel& m) {
  return make_scheduler(spec, m);
}

// A scheduler of `spec` holding `requests`.
inline std::unique_ptr<Scheduler> holding(const std::string& spec, const DeviceModel& m,
                                          const std::vector<Request>& requests) {
  auto s = make(spec, m);
  for (const auto& r : requests) s->add(r);
  return s;
}

using Ids = std::vector<std::uint64_t>;

}  // namespace disksched::testing
