// Zone sizes for the zone schedulers (Hong et al. sec. 7.2): the largest zone whose seeks
// stay under a threshold T, under an explicit rule.
//
// A zone is a rectangle of zone_x_bits columns by zone_y_bits bits. As in Hong's Fig. 3,
// the even and the odd columns of a rectangle are two separate zones, so all positions of
// a zone share one access direction and the zone holds every other column of its width.
// Rules (Hong states "the seek time between any two positions within a zone should be
// less than the threshold" and leaves the rest open):
//  - all-pairs (default, Hong's stated rule): every ordered pair of positions, so seeks
//    backwards in y count, with a turnaround at each end;
//  - forward: only seeks to a position ahead in the direction of access (no turnaround);
//  - reference: only seeks from the zone's reference point, its first column at the edge
//    where its sweep starts, to every position of the zone.
// `spring`: on (the model's spring factor), off (0) or a factor in [0, 1).
// `placement`: everywhere (default: uniform zones tile the whole sled, so the size must
// hold at every offset of the zone, edges included) or centre (only the zone centred on
// the sled, where the springs matter least; Hong's Fig. 2 regions were drawn from there).
//
// The search. seek = max(t_x, t_y) and a zone is a product of an x and a y interval with
// one direction, so a rule's worst seek in a zone is max(worst t_x over its x interval,
// worst t_y over its y interval), and the largest zone is the largest width times the
// largest height. Width and height are searched independently, bit by bit, requiring the
// worst seek to stay below T at every size up to the answer, for every placement of the
// zone in the tip region (every offset, not one tiling: near the edges the springs make
// seeks slower or faster) or, with `centre`, for the centred zone only.
//  - x: t_x grows with the distance (shown analytically, tested), so a width's worst is
//    the widest same-parity pair, at any placement; all three rules give the same width.
//  - y: computed exactly for every window by dynamic programming over window sizes, the
//    worst pair of a window being the worst of its two sub-windows one bit shorter and of
//    its end points; turnaround times vary along y, so the end points alone would not do.
// With `divisors`, each size is then lowered to the largest divisor of the tip region's
// bits, so that the zones tile the sled exactly (Hong's 96 um change served the same end).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/device_model.hpp"
#include "predictor/mems/mems_model.hpp"

namespace disksched {

enum class ZoneRule { AllPairs, Forward, Reference };
enum class ZonePlacement { Everywhere, Centre };

std::string_view zone_rule_name(ZoneRule r);  // "all-pairs", "forward", "reference"
// Throws ModelError naming the valid rules.
ZoneRule parse_zone_rule(std::string_view s);
std::string_view zone_placement_name(ZonePlacement p);  // "everywhere", "centre"
ZonePlacement parse_zone_placement(std::string_view s);
// "on" -> the model's spring factor, "off" -> 0, or a number in [0, 1). Throws ModelError.
double parse_spring(std::string_view s, const MemsParams& p);

struct ZoneOptions {
  Millis threshold_ms = 0.4;
  ZoneRule rule = ZoneRule::AllPairs;
  double spring_factor = -1.0;  // < 0: the model's
  ZonePlacement placement = ZonePlacement::Everywhere;
  bool divisors = false;
};

struct ZoneSize {
  std::int64_t zone_x_bits = 0;
  std::int64_t zone_y_bits = 0;
  ZoneRule rule = ZoneRule::AllPairs;
  Millis threshold_ms = 0;
  double spring_factor = 0;
  ZonePlacement placement = ZonePlacement::Everywhere;
  bool divisors = false;
  Millis worst_x_ms = 0;   // the rule's worst seek in x for this width
  Millis worst_y_ms = 0;   // ... and in y for this height
};

// {"zone_x_bits", "zone_y_bits", "rule", "threshold_ms", "spring", "spring_factor",
//  "placement", "divisors", "worst_x_ms", "worst_y_ms", "y_per_x"}; "spring" is "on",
//  "off" or the factor.
nlohmann::json to_json(const ZoneSize& z, const MemsParams& p);

// Throws ModelError when the threshold is not a positive time.
ZoneSize mems_zone_size(const MemsModel& m, const ZoneOptions& o);

// The worst seek of a rule for zones of width / height 1 .. max_size (element k is for
// size k + 1), over every placement or for the centred zone, stopping after the first
// size whose worst reaches `stop_above` (when >= 0). Over every placement the worst never
// decreases with the size (windows nest). The search and the tests use them.
std::vector<Millis> mems_zone_worst_x(const MemsSled& sled, std::int64_t max_size,
                                      ZonePlacement placement = ZonePlacement::Everywhere,
                                      Millis stop_above = -1.0);
std::vector<Millis> mems_zone_worst_y(const MemsSled& sled, ZoneRule rule, std::int64_t max_size,
                                      ZonePlacement placement = ZonePlacement::Everywhere,
                                      Millis stop_above = -1.0);

}  // namespace disksched
