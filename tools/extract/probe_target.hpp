// What geometry extraction talks to: a device that serves one request at a time.
//
// Every probe is a single read (or, inside a range the user allowed, a write) of a few
// sectors at queue depth 1. The target reports when the request was issued and when
// its completion was seen, on its own clock: CLOCK_MONOTONIC for a real device or an
// NBD server, a virtual clock for a simulated one. All times are milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "predictor/device_model.hpp"

namespace disksched::extract {

struct ProbeResult {
  Millis issue_ms = 0.0;     // just before the request was handed to the device
  Millis complete_ms = 0.0;  // just after its completion was seen
  // The thread was descheduled while the probe was in flight (context switch seen),
  // so its timing may carry a preemption delay.
  bool disturbed = false;
};

class ProbeTarget {
 public:
  virtual ~ProbeTarget() = default;

  // A short description for logs and the profile's provenance ("nbd:...", "/dev/sdb").
  virtual std::string describe() const = 0;
  // Logical sector size and the number of sectors the target exposes.
  virtual std::uint32_t sector_bytes() const = 0;
  virtual std::uint64_t sectors() const = 0;

  // The target's clock.
  virtual Millis now_ms() = 0;
  // Returns at (or as soon as possible after) time `t_ms`; busy-waits on a real clock
  // so that the next issue lands at a controlled rotational phase.
  virtual void wait_until(Millis t_ms) = 0;

  // Serves `count` sectors at `lba` and returns the timestamps. Throws on an I/O
  // error. Writes must lie inside the range the caller was allowed to write; real
  // targets write back the bytes they read from the same sectors.
  virtual ProbeResult read(std::uint64_t lba, std::uint32_t count) = 0;
  virtual ProbeResult write(std::uint64_t lba, std::uint32_t count) = 0;
  // The same write without FUA: a drive with write-behind may acknowledge it from its
  // buffer. Only to find out whether it does (the extraction's probes stay FUA); none
  // where the target cannot issue one.
  virtual std::optional<ProbeResult> write_buffered(std::uint64_t /*lba*/, std::uint32_t /*count*/) {
    return std::nullopt;
  }

  // The next two probes are a reach pair: a read of `src`, then `dst` at a chosen time.
  // A target that clears the drive's buffer before reads (cache_defeat.hpp) does it
  // before src for both, and nothing between them.
  virtual void pair(std::uint64_t /*src*/, std::uint64_t /*dst*/) {}
  // Reads are cheaper taken from the highest LBA down: a drive's read-ahead carries
  // forward only, so a read below every one before it is a miss as it is, where one just
  // past a read must first push that read's segment out (cache_defeat.hpp). Phases of a
  // set of sectors known beforehand are then read in that order.
  virtual bool prefers_descending_reads() const { return false; }

  // Wait for completions by spinning (polling without sleeping) instead of blocking.
  // Spinning saves the wake-up but keeps a core busy, which on a small machine may
  // delay the server itself: the extraction measures both and keeps the better.
  // Returns false when this target has no spinning wait.
  virtual bool set_spin_wait(bool /*on*/) { return false; }

  // The round trip of the host path alone, without touching the medium (an NBD
  // request to a null server through the same client library, a simulated host's
  // latency). Nothing when it cannot be measured for this kind of target.
  virtual std::optional<Millis> null_round_trip_ms() { return std::nullopt; }
};

}  // namespace disksched::extract
