// One request's life in the filter, from arrival to its log line: the one record its
// worker carries. The dispatcher's waiter points at it and fills it in, the latency log
// formats its line from it, the metrics observe it. Its `core` part is the dispatch
// core's record (id, operation, class, queue length, travel, prediction, model times):
// the core holds it in place from arrival to completion (DispatchCore::arrive_held) and
// fills it in where it is, never copied; beside it is what only the live world knows:
// the real clock, the class limit as configured, the scheduler's spec at dispatch, the
// errno.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "daemon/filter/class_map.hpp"
#include "schedulers/dispatch/request_record.hpp"

namespace disksched {

struct LiveRecord {
  RequestRecord core;            // core.seq is the request's id, given by the dispatch core
  Millis limit_ms = 0.0;         // a TimeLimited request's limit in real time (core's: model)
  // CLOCK_MONOTONIC: arrival, the scheduler chose it, the worker called the plugin for it
  // (after the scheduler's travel stops), the plugin returned.
  std::int64_t arrive_ns = 0, dispatch_ns = 0, issue_ns = 0, complete_ns = 0;
  bool predicted = false;        // core.prediction is the head source's (false: none made)
  double timescale = 1.0;        // real time per model time, to state the prediction in
  double sector_us = 0.0;        // one sector time in real us (0 without rotation)
  std::shared_ptr<const std::string> scheduler;  // its spec at dispatch
  int error = 0;                 // errno, 0 on success

  // A request as it arrives, before the dispatcher has seen it.
  static LiveRecord arriving(Op op, std::uint64_t offset, std::uint32_t length,
                             std::uint32_t flags, const ClassAssignment& cls) {
    LiveRecord r;
    r.core = RequestRecord::arriving(op, offset, length, cls.cls, 0.0, flags);
    r.limit_ms = cls.limit_ms;  // the core's limit (model time) is set as it arrives
    return r;
  }

  std::uint64_t id() const { return core.seq; }
  ClassAssignment cls() const { return {core.cls, limit_ms}; }
  // The predicted service time (dispatch -> completion) in real microseconds.
  double predicted_us() const { return core.prediction.observed_service_ms() * timescale * 1e3; }
};

}  // namespace disksched
