// SSTF: the request nearest the head next (JW sec. 2). `by=cyl` measures the distance in
// cylinders (MEMS: x columns), the traditional form; `by=lbn` in logical blocks from the
// block after the last dispatch, as Deodhar & Naik's SSTF-LBN for Linux (DN sec. 5).
// Equal distances on both sides go to the earlier arrival.
#include <fmt/format.h>

#include "schedulers/seek/algorithms.hpp"
#include "schedulers/seek/ordering.hpp"
#include "schedulers/seek/position_scheduler.hpp"
#include "schedulers/seek/position_policy.hpp"

namespace disksched::seek {
namespace {

template <typename By>
class Sstf final : public PositionScheduler<By> {
 public:
  using PositionScheduler<By>::PositionScheduler;

 private:
  using Entry = typename PositionScheduler<By>::Index::Entry;
  const Entry* choose(typename By::Pos h, const HeadState&) override {
    return this->index().nearest(h);
  }
};

}  // namespace

ParamSpec by_param(std::string_view what) {
  ParamSpec by;
  by.name = "by";
  by.description = fmt::format(
      "{}: cyl = cylinders (MEMS: x columns), lbn = logical blocks from the end of the last "
      "dispatch (DN)",
      what);
  by.choices = {"cyl", "lbn"};
  by.default_choice = "cyl";
  return by;
}

AlgorithmInfo sstf_algorithm() {
  return {
      .name = "sstf",
      .description = "shortest seek first: the request nearest the head, in cylinders or blocks",
      .source = "JW sec. 2; DN sec. 5 (by LBN)",
      .params = {by_param("distance measure")},
      .factory = by_position_factory<Sstf>(sstf_algorithm),
  };
}

}  // namespace disksched::seek
