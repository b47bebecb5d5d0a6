// One request's life, from arrival to the log line: the one record the dispatch core
// keeps, the simulator measures and the filter logs.
#pragma once

#include <cstdint>

#include "predictor/device_model.hpp"
#include "predictor/head_source.hpp"
#include "schedulers/request.hpp"

namespace disksched {

// The simulator's protocol phase of a request (JW sec. 6); Measured outside it.
enum class Phase : std::uint8_t { Warmup, Measured, KeepWarm };

struct RequestRecord {
  std::uint64_t seq = 0;        // the id the dispatch core gave it: arrival order from 0
  Op op = Op::Read;
  Phase phase = Phase::Measured;
  IoClass cls = IoClass::TimeNoncritical;
  std::uint32_t flags = 0;      // kFlag*
  std::uint32_t length = 0;     // bytes
  std::uint64_t offset = 0;     // bytes
  std::uint32_t queue_len = 0;  // requests the scheduler chose among at dispatch (incl. this)
  std::uint32_t client = 0;     // closed workloads: the client that issued it
  Millis limit_ms = 0.0;        // time limit of a TimeLimited request
  Millis arrival_ms = 0.0;
  Millis dispatch_ms = 0.0;     // when the scheduler chose it
  Millis start_ms = 0.0;        // when the device began serving it (>= dispatch)
  Millis completion_ms = 0.0;
  // The device's cost parts (predictor/device_model.hpp, Cost) where the device is known
  // (simulation, emulation); the prediction the head source made at dispatch.
  Millis overhead_ms = 0.0;
  Millis seek_ms = 0.0;
  Millis rotation_ms = 0.0;
  Millis transfer_ms = 0.0;
  Millis report_ms = 0.0;       // Cost::completion_ms
  // The scheduler's stops before the request (SCAN's trip to the edge: request.hpp,
  // Travel), from start_ms; the Cost parts above follow it.
  Millis travel_ms = 0.0;
  Travel travel;
  Prediction prediction;
  bool ok = true;               // false: the device failed it

  // What arrives: the one way a caller makes the record it hands the dispatch core
  // (which gives it its seq and arrival time), in a fresh record (arriving) or in a
  // cleared one where it is (DispatchCore::next_record). The simulator adds phase and
  // client.
  RequestRecord& arrive_as(Op o, std::uint64_t off, std::uint32_t len,
                           IoClass c = IoClass::TimeNoncritical, Millis limit = 0.0,
                           std::uint32_t f = 0) {
    op = o;
    offset = off;
    length = len;
    cls = c;
    limit_ms = limit;
    flags = f;
    return *this;
  }
  static RequestRecord arriving(Op o, std::uint64_t off, std::uint32_t len,
                                IoClass c = IoClass::TimeNoncritical, Millis limit = 0.0,
                                std::uint32_t f = 0) {
    RequestRecord r;
    r.arrive_as(o, off, len, c, limit, f);
    return r;
  }

  Millis response_ms() const { return completion_ms - arrival_ms; }
  Millis wait_ms() const { return start_ms - arrival_ms; }
  Millis service_ms() const { return completion_ms - start_ms; }
};

}  // namespace disksched
