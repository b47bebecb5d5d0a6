// The drive's own command queue (SATA NCQ, SAS TCQ), a layer above VirtualDevice::serve.
//
// The drive accepts up to `depth` commands (1: no queueing; SATA NCQ: 32). Commands
// beyond that wait in arrival order, as at a host adapter. Whenever the mechanism is
// free the firmware picks the next command among those it holds by its policy, one of
// the registry's schedulers (`fcfs`, `satf`, `asatf:w=30`, ...), from the head state the
// last command left. With a window, the policy sees only the oldest `window` of them
// (what a desktop drive's firmware reorders); the rest wait their turn in arrival order.
// Aging, so none starves: a command held past the age limit (counted from when it
// entered the window) goes before every younger one, the policy choosing among such
// commands; one past twice the limit goes next, the oldest of them. The policy's choice
// among the overdue is what keeps a deep queue from collapsing: with the oldest overdue
// always next, a queue whose depth times the drive's FCFS service time exceeds the
// limit (32 x 18 ms on a 5400 rpm drive against 500 ms) stays overdue for good and is
// served in arrival order, slower than at depth 1. The held commands keep the overlap
// rule of schedulers/queue.hpp: a command never passes an earlier one it overlaps.
//
// A flush is not queued (SATA's FLUSH CACHE is a non-queued command): it is accepted only
// when the drive holds nothing else, and nothing is accepted behind it until it completes.
//
// Deterministic and in the caller's time: submit() and start() never read a clock. The
// caller submits every command of an instant, then calls start(now), so commands that
// arrive together are all held when the firmware chooses. start(now) picks only when the
// mechanism is idle at `now`; the picked command is served on the VirtualDevice at once
// (its completion is then known) and complete() retires it at that completion.
//
// Depth 1 is today's device without a queue, exactly: the commands reach the device in
// arrival order and each starts at max(arrival, previous completion).
//
// Why this is not a configuration of the one dispatch core (schedulers/dispatch/
// dispatch_core.hpp): the two are layers that run at once, the host's core deciding what
// the drive is sent and this deciding, inside the drive, what it does next
// (ARCHITECTURE.md, "Latency targets over a drive that queues"). What they share is
// shared: the request queue with its overlap rule and the registry's schedulers. What
// this adds is the firmware's and has no place in the host's decision path: the window
// the policy sees, forcing by age, a flush that is not queued, commands waiting beyond
// the depth; and it serves the VirtualDevice directly, with no head source, records or
// log lines to keep. Folding these into DispatchCore would put a drive's rules in the
// filter's every dispatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "emulator/device/virtual_device.hpp"
#include "schedulers/queue.hpp"

namespace disksched {

struct DriveQueueOptions {
  unsigned depth = 1;            // commands the drive holds at once, >= 1
  std::string policy = "fcfs";   // the firmware's scheduler, a registry spec
  // The policy chooses among the oldest `window` commands held (0: all of them): a
  // desktop drive reorders only a few (the ST2000DM006 measured: about 4).
  unsigned window = 0;
  // A command past this age goes before younger ones (infinity: no limit); past twice
  // it, the oldest goes next. Age counts from when it entered the window.
  Millis age_limit_ms = std::numeric_limits<Millis>::infinity();

  bool has_age_limit() const { return age_limit_ms < std::numeric_limits<Millis>::infinity(); }
};

class DriveQueue {
 public:
  // One command the drive served, all in device ms.
  struct Served {
    std::uint64_t tag = 0;      // the caller's
    Millis accepted_ms = 0.0;   // when the drive took it into its queue
    Millis start_ms = 0.0;      // when the mechanism began (the first stop, if any)
    Millis travel_ms = 0.0;     // the stops, before the command itself
    Service service;            // the command itself (arrival_ms: when it was submitted)
    std::size_t held = 0;       // commands the drive held when it picked this one
    bool forced = false;        // picked for its age, not by the policy
  };

  // Throws SpecError for a policy the registry refuses (or that does not fit the model),
  // std::invalid_argument for depth 0 or an age limit that is not > 0.
  DriveQueue(VirtualDevice& device, DriveQueueOptions options);
  ~DriveQueue();
  DriveQueue(const DriveQueue&) = delete;
  DriveQueue& operator=(const DriveQueue&) = delete;

  const DriveQueueOptions& options() const { return options_; }
  // The policy's canonical spec.
  const std::string& policy() const { return policy_; }
  VirtualDevice& device() { return device_; }

  // A command arrives at `now` (never earlier than a previous call's time). `stops`:
  // blocks read first, one sector each (SCAN's trip to the edge), as part of the command.
  // Throws ModelError for a range beyond the device; nothing is queued then.
  // `fua`: a write that must reach the media before it completes (the write cache's).
  void submit(std::uint64_t tag, Millis now, Op op, std::uint64_t offset, std::uint32_t length,
              std::span<const std::uint64_t> stops = {}, bool fua = false);

  // When no command is being served, picks the next and serves it: it starts at
  // max(its arrival, the last completion), so a real-time caller that picks a little
  // late keeps the device's timeline. Returns whether one was started.
  bool start(Millis now);

  // The command being served, or null when the mechanism is idle.
  const Served* in_service() const { return current_ ? &*current_ : nullptr; }
  // Its completion, infinity when idle.
  Millis next_completion_ms() const {
    return current_ ? current_->service.completion_ms : std::numeric_limits<Millis>::infinity();
  }
  // Retires the command being served (at next_completion_ms()) and returns it. The caller
  // then calls start() at that time. Throws std::logic_error when idle.
  Served complete();

  std::size_t held() const { return held_.size(); }         // in the drive's queue
  std::size_t waiting() const { return adapter_.size(); }   // beyond the depth
  bool idle() const { return !current_ && held_.empty() && adapter_.empty(); }
  std::uint64_t forced() const { return forced_; }           // picks forced by age

 private:
  struct Command {
    std::uint64_t tag = 0;
    Op op = Op::Read;
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    Millis submit_ms = 0.0;
    Millis accepted_ms = 0.0;
    Millis window_ms = -1.0;  // when it entered the window (the policy's queue); -1: not yet
    std::vector<std::uint64_t> stops;
    bool fua = false;
  };

  // Moves commands from the adapter into the drive while it has room (and no flush).
  void accept(Millis now);
  // Puts the oldest held commands not yet in the policy's queue into it, up to the window.
  void fill_window(Millis now);
  // The command to go next for its age, if one is overdue at `now` (held_.end(): none).
  std::map<std::uint64_t, Command>::iterator overdue(Millis now);
  Served serve(Command c, std::size_t held, bool forced);

  VirtualDevice& device_;
  DriveQueueOptions options_;
  std::string policy_;
  RequestQueue queue_;                       // the firmware's policy + overlap rule
  std::map<std::uint64_t, Command> held_;    // by the drive's id: acceptance order
  std::deque<Command> adapter_;              // beyond the depth, arrival order
  std::optional<Served> current_;
  std::optional<std::uint64_t> current_id_;  // its id in queue_ (none: forced or a flush)
  std::uint64_t next_id_ = 0;
  std::size_t in_window_ = 0;                // held commands in queue_
  bool flush_held_ = false;
  std::uint64_t forced_ = 0;
};

}  // namespace disksched
