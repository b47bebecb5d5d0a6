// The cost model the filter uses when no geometry is given (no sched-geometry=): only
// logical block numbers are known, so positioning is taken to grow linearly with the LBN
// distance from the end of the last request. That is all the LBN schedulers need (FCFS,
// SSTF, SCAN, LOOK, C-SCAN, C-LOOK, V(R), SSWT order requests by LBN distance); it is
// not rotational, so the rotation-aware schedulers refuse it.
//
// Service time = overhead + full_stroke * distance / capacity + sectors * transfer per
// sector. The defaults describe a generic disk of the early 2000s (Huang & Chiueh's
// class): 0.5 ms overhead, 10 ms across the whole device, 50 MB/s. The filter refits the
// three terms to observed completions (fit()), so predicted completion times follow the
// real device; LBN schedulers only compare distances either way.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/head_tracker.hpp"

namespace disksched {

class LbnModel final : public DeviceModel {
 public:
  struct Params {
    Millis overhead_ms = 0.5;
    Millis full_stroke_ms = 10.0;
    Millis transfer_ms_per_sector = 512.0 / 50e6 * 1e3;
  };

  LbnModel(std::uint64_t capacity_bytes, std::uint32_t sector_bytes = 512);
  LbnModel(std::uint64_t capacity_bytes, std::uint32_t sector_bytes, Params params);

  std::string_view kind() const override { return "lbn"; }
  std::string name() const override;
  std::uint64_t capacity_bytes() const override { return capacity_; }
  std::uint32_t sector_bytes() const override { return sector_bytes_; }
  // One "cylinder" per sector: distances are LBN distances.
  std::int64_t cylinders() const override;
  bool rotational() const override { return false; }
  Location locate(std::uint64_t lba, std::uint32_t sectors, Op op) const override;
  Millis positioning_ms(const HeadState& from, const Location& to) const override;
  Millis seek_ms(std::int64_t distance) const override;
  Cost service(const HeadState& from, Op op, std::uint64_t offset,
               std::uint32_t length) const override;

  const Params& params() const { return params_; }
  void set_params(const Params& p) { params_ = p; }

  // Least-squares fit of the three terms to observed service times (dispatch ->
  // completion of requests started on an idle device), keeping this model's values for
  // terms the samples cannot tell apart (all one size, all one distance). Negative
  // terms become 0. Nullopt with fewer than 8 usable samples.
  std::optional<Params> fit(const std::vector<TrackerSample>& samples) const;

 private:
  std::uint64_t capacity_;
  std::uint32_t sector_bytes_;
  Params params_;
};

}  // namespace disksched
