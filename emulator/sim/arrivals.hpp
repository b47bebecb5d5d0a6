// How requests come into the simulator: an open stream of timed arrivals, or the
// clients of a closed loop. The simulator only sees these interfaces; the workloads
// that implement them (synthetic generators, trace replay) live in bench/experiments/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched {

// One request of an open workload.
struct Arrival {
  Millis time_ms = 0.0;       // arrival time from the start of the run
  Op op = Op::Read;
  std::uint64_t offset = 0;   // bytes, offset + length <= the device's capacity
  std::uint32_t length = 0;   // bytes
  IoClass cls = IoClass::TimeNoncritical;  // a trace's class (GP), else the default
  Millis limit_ms = 0.0;                   // time-limited: the limit
};

// One request of a closed workload's client: issued `think_ms` after the client's
// previous request completed (after the start of the run for its first request).
struct ClosedStep {
  Millis think_ms = 0.0;
  Op op = Op::Read;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  IoClass cls = IoClass::TimeNoncritical;
  Millis limit_ms = 0.0;
};

// A time-ordered stream of arrivals. Synthetic streams never end; a trace ends.
class ArrivalStream {
 public:
  virtual ~ArrivalStream() = default;
  // The next arrival, with time_ms >= the previous one's; nullopt when exhausted.
  virtual std::optional<Arrival> next() = 0;
};

// The clients of a closed workload, each with at most one request outstanding.
class ClosedStream {
 public:
  virtual ~ClosedStream() = default;
  virtual std::size_t population() const = 0;
  // Client `client`'s next request (0 <= client < population()); nullopt when the
  // client has nothing more to issue (its trace ended).
  virtual std::optional<ClosedStep> next(std::size_t client) = 0;
};

}  // namespace disksched
