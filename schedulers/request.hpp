// What a scheduler sees of an I/O request.
#pragma once

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
};

}  // namespace disksched
