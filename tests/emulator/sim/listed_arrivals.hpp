// An arrival stream that hands out a fixed list in order: hand-built cases for the
// simulator's tests.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "emulator/sim/arrivals.hpp"

namespace disksched::testing {

class ListedArrivals final : public ArrivalStream {
 public:
  explicit ListedArrivals(std::vector<Arrival> a) : a_(std::move(a)) {}
  std::optional<Arrival> next() override {
    if (i_ == a_.size()) return std::nullopt;
    return a_[i_++];
  }

 private:
  std::vector<Arrival> a_;
  std::size_t i_ = 0;
};

}  // namespace disksched::testing
