// A small disk whose costs the tests control exactly: C cylinders x H heads x S
// sectors, no skew (sector s of every track starts at angle s / S), rotation T ms,
// seek(d) = seek_a + seek_b * d for d > 0, head switch hs (overlapping a seek), one
// command overhead for every op, no completion overhead. Positioning follows the
// DeviceModel contract: overhead, then arm motion, then wait for the start sector.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched::testing {

struct FakeDiskSpec {
  std::int64_t cylinders = 100;
  std::int32_t heads = 2;
  std::uint32_t spt = 10;       // sectors per track
  Millis rotation = 10.0;       // so one sector passes in 1 ms
  Millis seek_a = 2.0;          // ms for any seek of at least one cylinder
  Millis seek_b = 0.1;          // ms per cylinder
  Millis head_switch = 1.0;
  Millis overhead = 0.0;
};

class FakeDisk final : public DeviceModel {
 public:
  explicit FakeDisk(FakeDiskSpec s = {}) : s_(s) {}

  std::string_view kind() const override { return "disk"; }
  std::string name() const override { return "fake-disk"; }
  std::uint64_t capacity_bytes() const override { return sectors() * 512; }
  std::uint32_t sector_bytes() const override { return 512; }
  std::int64_t cylinders() const override { return s_.cylinders; }
  bool rotational() const override { return true; }
  Millis rotation_ms() const override { return s_.rotation; }
  Millis sector_time_ms() const override { return s_.rotation / s_.spt; }
  Spin spin() const override { return Spin::of(s_.rotation, 0.0); }

  std::uint64_t sectors() const {
    return static_cast<std::uint64_t>(s_.cylinders) * s_.heads * s_.spt;
  }
  std::uint64_t lba(std::int64_t cyl, std::int32_t head, std::uint32_t sector) const {
    return (static_cast<std::uint64_t>(cyl) * s_.heads + head) * s_.spt + sector;
  }

  Location locate(std::uint64_t lba, std::uint32_t sectors, Op op) const override {
    if (lba + sectors > this->sectors())
      throw ModelError(fmt::format("fake-disk: [{}, {}) beyond the device", lba, lba + sectors));
    Location l;
    l.lba = lba;
    l.sectors = sectors;
    l.cylinder = static_cast<std::int64_t>(lba / (s_.heads * s_.spt));
    l.head = static_cast<std::int32_t>((lba / s_.spt) % s_.heads);
    l.angle = static_cast<double>(lba % s_.spt) / s_.spt;
    l.overhead_ms = s_.overhead;
    (void)op;
    return l;
  }

  Millis seek_ms(std::int64_t d) const override {
    d = d < 0 ? -d : d;
    return d == 0 ? 0.0 : s_.seek_a + s_.seek_b * static_cast<double>(d);
  }

  Millis move_ms(const HeadState& from, const Location& to) const {
    const Millis s = seek_ms(to.cylinder - from.cylinder);
    return from.head != to.head ? std::max(s, s_.head_switch) : s;
  }

  Millis positioning_ms(const HeadState& from, const Location& to) const override {
    const Millis m = to.overhead_ms + move_ms(from, to);
    return m + wait(from.time_ms + m, to.angle);
  }

  // Transfers stay on their track (tests use requests that do not cross one).
  Cost service(const HeadState& from, Op op, std::uint64_t offset,
               std::uint32_t length) const override {
    const std::uint64_t first = offset / 512;
    const std::uint32_t n = std::max<std::uint32_t>(1, (length + 511) / 512);
    const Location l = locate(first, n, op);
    Cost c;
    c.overhead_ms = s_.overhead;
    c.seek_ms = move_ms(from, l);
    c.rotation_ms = wait(from.time_ms + c.overhead_ms + c.seek_ms, l.angle);
    c.transfer_ms = n * sector_time_ms();
    c.end.cylinder = l.cylinder;
    c.end.head = l.head;
    c.end.time_ms = from.time_ms + c.service_ms();
    return c;
  }

 private:
  static double frac(double x) { return x - std::floor(x); }
  Millis wait(Millis t, double angle) const {
    double d = frac(angle - angle_at(t));
    if (d > 1.0 - 1e-9) d = 0.0;
    return d * s_.rotation;
  }

  FakeDiskSpec s_;
};

}  // namespace disksched::testing
