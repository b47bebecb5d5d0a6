// What a scheduler sees of an I/O request.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "predictor/device_model.hpp"

namespace disksched {

// Ganger & Patt's request classes (GP sec. 6).
enum class IoClass : std::uint8_t { TimeCritical, TimeLimited, TimeNoncritical };

std::string_view class_name(IoClass c);

// NBD flag bits as nbdkit hands them to a filter (NBDKIT_FLAG_*), kept here so the
// scheduler core has no nbdkit dependency.
inline constexpr std::uint32_t kFlagMayTrim = 1u << 0;
inline constexpr std::uint32_t kFlagFua = 1u << 1;
inline constexpr std::uint32_t kFlagReqOne = 1u << 2;
inline constexpr std::uint32_t kFlagFastZero = 1u << 3;

// Where the mechanism must go before a request, when its scheduler says so: SCAN runs
// the arm on to the edge of the disk before it turns, C-SCAN also returns to the other
// edge. Each stop is a one-sector read, its data discarded: NBD (and the block layer
// below it) has no seek-only command, so a read of the sector that passes under the
// heads soonest after the seek is the cheapest way to move the arm. The simulator and
// the daemon issue the same reads, so they agree on what the trip costs.
struct Travel {
  std::array<std::uint64_t, 2> lba{};  // the stops, in order
  std::uint8_t stops = 0;
  bool empty() const { return stops == 0; }
  void add(std::uint64_t l) { lba.at(stops++) = l; }
  const std::uint64_t* begin() const { return lba.data(); }
  const std::uint64_t* end() const { return lba.data() + stops; }
};

struct Request {
  std::uint64_t id = 0;
  Op op = Op::Read;
  std::uint64_t offset = 0;   // bytes
  std::uint32_t length = 0;   // bytes
  std::uint32_t flags = 0;    // kFlag*
  IoClass cls = IoClass::TimeNoncritical;
  Millis limit_ms = 0.0;      // time limit for TimeLimited requests
  Millis arrival_ms = 0.0;
  // Filled by RequestQueue::push from the device model; schedulers read it.
  Location loc;
  // Set by the scheduler's pick(): the stops on the way to this request (usually none).
  Travel travel;

  // The one builder of a request as it arrives, under the id its queue knows it by
  // (the dispatch core's, or the drive queue's own).
  static Request arrived(std::uint64_t id, Millis arrival_ms, Op op, std::uint64_t offset,
                         std::uint32_t length, IoClass cls = IoClass::TimeNoncritical,
                         Millis limit_ms = 0.0, std::uint32_t flags = 0) {
    Request r;
    r.id = id;
    r.op = op;
    r.offset = offset;
    r.length = length;
    r.flags = flags;
    r.cls = cls;
    r.limit_ms = limit_ms;
    r.arrival_ms = arrival_ms;
    return r;
  }
};

}  // namespace disksched
