#include "schedulers/seek/edge.hpp"

#include <stdexcept>

namespace disksched::seek {
namespace {

// Candidates examined on an edge track: more than any zone's sectors per track in the
// models we ship (HP 97560: 72), few enough to keep a reversal cheap.
constexpr std::uint64_t kMaxCandidates = 512;

}  // namespace

Edges::Edges(const DeviceModel& model) : model_(model) {
  const std::uint64_t blocks = model.capacity_bytes() / model.sector_bytes();
  if (blocks == 0) throw std::invalid_argument("edges: the device holds no block");
  last_lba_ = blocks - 1;
  low_cyl_ = model.locate(0).cylinder;
  high_cyl_ = model.locate(last_lba_).cylinder;
}

std::uint64_t Edges::soonest(bool high, const HeadState& from) const {
  const std::uint64_t edge = high ? last_lba_ : 0;
  const Location first = model_.locate(edge);
  std::uint64_t best = edge;
  Millis best_ms = model_.positioning_ms(from, first);
  for (std::uint64_t i = 1; i < kMaxCandidates && i <= last_lba_; ++i) {
    const std::uint64_t lba = high ? edge - i : edge + i;
    const Location l = model_.locate(lba);
    if (l.cylinder != first.cylinder || l.head != first.head) break;  // left the track
    const Millis ms = model_.positioning_ms(from, l);
    if (ms < best_ms) {
      best_ms = ms;
      best = lba;
    }
  }
  return best;
}

HeadState Edges::after(const HeadState& from, std::uint64_t lba) const {
  return model_.service(from, Op::Read, lba * model_.sector_bytes(), model_.sector_bytes()).end;
}

}  // namespace disksched::seek
