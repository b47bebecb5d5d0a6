// The interface every scheduling algorithm implements.
//
// A scheduler never reads a clock and never sees a concrete device: the time and the
// predicted head state are passed to pick(), and costs come from the DeviceModel it was
// built with. The same object runs in the simulator, the emulator and the daemon.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched {

class Registry;

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // The canonical spec of this instance with every parameter, e.g. "asatf:w=30".
  virtual std::string spec() const = 0;

  // Offer an eligible request. Its id is unique among the requests held.
  virtual void add(const Request& r) = 0;

  // Withdraw a request that was added and not yet picked (e.g. a cancelled one).
  // Returns false when the id is not held.
  virtual bool remove(std::uint64_t id) = 0;

  // A held request's Location changed (its track's angle was learnt): `r` is the request
  // with the new one. Returns false when the id is not held. The default withdraws and
  // offers it again; a scheduler whose order depends on when a request was added keeps
  // its place instead.
  virtual bool relocate(const Request& r) {
    if (!remove(r.id)) return false;
    add(r);
    return true;
  }

  // Choose the next request to send to the device and remove it from the scheduler.
  // `now` is the current time; `head` the predicted head state when the device will
  // be free (head.time_ms >= now when the device is still busy). Ties go to the
  // earliest arrival, then the lowest id. Returns nullopt when empty.
  virtual std::optional<Request> pick(Millis now, const HeadState& head) = 0;

  // Number of requests held.
  virtual std::size_t size() const = 0;

  // Every request held, in no particular order (used to hand the queue to another
  // scheduler when the daemon switches algorithms).
  virtual std::vector<Request> drain() = 0;

  // Told when a dispatched request completes (batch algorithms track their batch).
  virtual void completed(const Request& /*r*/, Millis /*now*/) {}

  // After a switch of algorithm: told of each request already at the device (the new
  // scheduler will be told of its completion), so one that bounds what the device holds
  // counts it.
  virtual void at_device(const Request& /*r*/) {}

  // What the algorithm counts of its own, by name (qos: the depth it allows, each
  // class's longest wait); reported beside the dispatch core's counters.
  virtual std::vector<std::pair<std::string, double>> counters() const { return {}; }

  // False when the order never reads Request::loc (FCFS): the queue then does not
  // compute it, which costs as much as the rest of the request's way through.
  virtual bool uses_locations() const { return true; }

  // False when pick() never reads its `head` argument (FCFS): the dispatch core then
  // does not ask the head source for a prediction nobody reads.
  virtual bool uses_head() const { return true; }

  // The algorithm orders by rotational position (its registry entry says so; false for
  // one not built by the Registry).
  bool needs_rotation() const { return needs_rotation_; }

 private:
  friend class Registry;  // sets needs_rotation_ from the algorithm's entry
  bool needs_rotation_ = false;
};

}  // namespace disksched
