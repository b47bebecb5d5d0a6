// The device as the simulator's head source. In simulation there is nothing to guess:
// the device takes each request the moment the dispatch core sends it (behind those it
// holds, in order, as a device without a command queue of its own), serves it on the
// VirtualDevice at once in virtual time, and so knows where its head will be. The
// simulator's event loop completes the requests in the order and at the times it
// reports.
//
// With a drive queue (drive_queue.hpp) the drive reorders what it holds, so nothing is
// served at dispatch: the request is submitted to the drive, settle() lets the firmware
// pick when the mechanism is free, and the head source knows only what a host could:
// the head after the command being served. Each prediction is the model's cost from
// there, so a record's predicted service says how far a host's guess is off.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "emulator/device/drive_queue.hpp"
#include "emulator/device/virtual_device.hpp"
#include "predictor/head_source.hpp"

namespace disksched {

class SimulatedDrive final : public HeadSource {
 public:
  // One request at the device, from its first travel stop to its completion.
  struct InService {
    std::uint64_t id = 0;
    Millis start_ms = 0.0;    // when the device began (the first travel stop, if any)
    Millis travel_ms = 0.0;   // the travel stops, before the request itself
    Service service;          // the request itself
    Prediction prediction;    // what the head source answered at dispatch: the truth
  };

  explicit SimulatedDrive(VirtualDevice& device) : device_(device) {}
  // Over a drive with its own queue (serving on `queue.device()`).
  explicit SimulatedDrive(DriveQueue& queue) : device_(queue.device()), queue_(&queue) {}

  HeadState predict(Millis now) const override;
  const Prediction& dispatched(std::uint64_t id, Millis now, Op op, std::uint64_t offset,
                               std::uint32_t length,
                               std::span<const std::uint64_t> stops = {}) override;
  const Prediction& completed(std::uint64_t id, Millis now, bool ok) override;
  bool knows_hits() const override { return device_.drive() != nullptr; }
  bool hits(Millis now, std::uint64_t offset, std::uint32_t length) const override;

  // With a drive queue: the firmware picks at `now` when the mechanism is free (after
  // every event of the instant). Without one, nothing to do.
  void settle(Millis now) {
    if (queue_) settle_queue(now);
  }

  bool busy() const { return queue_ ? !queue_->idle() : held() > 0; }
  // The request that completes next, and when (infinity when idle).
  const InService& next() const { return queue_ ? *serving_ : held_[first_]; }
  Millis next_completion_ms() const {
    if (queue_) return queue_->next_completion_ms();
    return held() == 0 ? std::numeric_limits<Millis>::infinity()
                       : held_[first_].service.completion_ms;
  }

 private:
  std::size_t held() const { return end_ - first_; }
  void settle_queue(Millis now);

  VirtualDevice& device_;
  // In service order, [first_, end_): a FIFO that reuses its slots, those past end_
  // too (an InService is large: a fresh one per request cost as much as the rest of
  // the dispatch, and its destaged list keeps its storage).
  std::vector<InService> held_;
  std::size_t first_ = 0, end_ = 0;
  // With a drive queue: the command being served, and the predictions of those held.
  DriveQueue* queue_ = nullptr;
  std::optional<InService> serving_;
  std::unordered_map<std::uint64_t, Prediction> predicted_;
  Prediction scratch_;
};

}  // namespace disksched
