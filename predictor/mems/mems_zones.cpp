#include "predictor/mems/mems_zones.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace disksched {

std::string_view zone_rule_name(ZoneRule r) {
  switch (r) {
    case ZoneRule::AllPairs: return "all-pairs";
    case ZoneRule::Forward: return "forward";
    case ZoneRule::Reference: return "reference";
  }
  return "?";
}

ZoneRule parse_zone_rule(std::string_view s) {
  if (s == "all-pairs") return ZoneRule::AllPairs;
  if (s == "forward") return ZoneRule::Forward;
  if (s == "reference") return ZoneRule::Reference;
  throw ModelError(fmt::format("zone rule '{}' is unknown; valid: all-pairs, forward, reference", s));
}

std::string_view zone_placement_name(ZonePlacement p) {
  return p == ZonePlacement::Centre ? "centre" : "everywhere";
}

ZonePlacement parse_zone_placement(std::string_view s) {
  if (s == "everywhere") return ZonePlacement::Everywhere;
  if (s == "centre" || s == "center") return ZonePlacement::Centre;
  throw ModelError(fmt::format("zone placement '{}' is unknown; valid: everywhere, centre", s));
}

double parse_spring(std::string_view s, const MemsParams& p) {
  if (s == "on") return p.spring_factor;
  if (s == "off") return 0.0;
  double f = -1;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, f);
  if (ec != std::errc{} || ptr != end || !(f >= 0 && f < 1))
    throw ModelError(fmt::format("spring '{}' is invalid; expected on, off or a spring factor "
                                 "in [0, 1)", s));
  return f;
}

nlohmann::json to_json(const ZoneSize& z, const MemsParams& p) {
  nlohmann::json spring;
  if (z.spring_factor == 0)
    spring = "off";
  else if (z.spring_factor == p.spring_factor)
    spring = "on";
  else
    spring = z.spring_factor;
  return {{"zone_x_bits", z.zone_x_bits},
          {"zone_y_bits", z.zone_y_bits},
          {"rule", std::string(zone_rule_name(z.rule))},
          {"threshold_ms", z.threshold_ms},
          {"spring", spring},
          {"spring_factor", z.spring_factor},
          {"placement", std::string(zone_placement_name(z.placement))},
          {"divisors", z.divisors},
          {"worst_x_ms", z.worst_x_ms},
          {"worst_y_ms", z.worst_y_ms},
          {"y_per_x", z.zone_x_bits > 0 ? static_cast<double>(z.zone_y_bits) /
                                              static_cast<double>(z.zone_x_bits)
                                        : 0.0}};
}

std::vector<Millis> mems_zone_worst_x(const MemsSled& sled, std::int64_t max_size,
                                      ZonePlacement placement, Millis stop_above) {
  // A width w holds same-parity columns at most d = w - 1 (w odd) or w - 2 (w even)
  // apart, and t_x grows with distance, so its worst is the worst pair d apart: anywhere,
  // or centred on the sled.
  const std::int64_t n = sled.bits_x();
  max_size = std::min(max_size, n);
  std::vector<Millis> out;
  for (std::int64_t w = 1; w <= max_size; ++w) {
    const std::int64_t d = (w % 2) ? w - 1 : w - 2;
    Millis worst = 0;
    if (d > 0 && placement == ZonePlacement::Centre) {
      const std::int64_t s = (n - 1 - d) / 2;
      worst = sled.x_seek_ms(s, s + d);
    } else if (d > 0) {
      for (std::int64_t s = 0; s + d < n; ++s) worst = std::max(worst, sled.x_seek_ms(s, s + d));
    }
    out.push_back(worst);
    if (stop_above >= 0 && worst >= stop_above) break;
  }
  return out;
}

std::vector<Millis> mems_zone_worst_y(const MemsSled& sled, ZoneRule rule, std::int64_t max_size,
                                      ZonePlacement placement, Millis stop_above) {
  // Positions y = 0 .. n-1. For a pair (lo, hi) the seeks of a zone read moving -y take
  // as long as those of a zone read moving +y (time reversal: the forward seek is the same
  // base seek, the backward one the same two turnarounds), so one direction stands for
  // both; except for `reference`, whose reference point is the lower edge of a +y zone
  // and the upper edge of a -y zone.
  const std::int64_t n = sled.bits_y();
  max_size = std::min(max_size, n);
  // cur[s]: the rule's worst seek within the window [s, s + w - 1], for the current w.
  std::vector<Millis> cur(static_cast<std::size_t>(n), 0.0);
  std::vector<Millis> cur_dn;  // reference only: from the top edge moving -y
  if (rule == ZoneRule::Reference) cur_dn.assign(static_cast<std::size_t>(n), 0.0);
  std::vector<Millis> out{0.0};
  for (std::int64_t w = 2; w <= max_size; ++w) {
    Millis worst = 0;
    for (std::int64_t s = 0; s + w <= n; ++s) {
      const auto i = static_cast<std::size_t>(s);
      const double lo = static_cast<double>(s), hi = static_cast<double>(s + w - 1);
      switch (rule) {
        case ZoneRule::AllPairs:
          // The worst pair of [lo, hi] is in [lo, hi-1], in [lo+1, hi] or is (lo, hi);
          // for that pair the backward seek (two turnarounds) is the slower one.
          cur[i] = std::max({cur[i], cur[i + 1], sled.y_seek_ms(hi, +1, lo, +1)});
          break;
        case ZoneRule::Forward:
          cur[i] = std::max({cur[i], cur[i + 1], sled.y_base_ms(lo, hi)});
          break;
        case ZoneRule::Reference:
          // From the bottom edge moving +y to every y of the window, and from the top
          // edge moving -y: windows grow at the far end from their reference point.
          cur[i] = std::max(cur[i], sled.y_base_ms(lo, hi));
          cur_dn[i] = std::max(cur_dn[i + 1], sled.y_base_ms(lo, hi));
          break;
      }
      if (placement == ZonePlacement::Everywhere)
        worst = std::max({worst, cur[i], rule == ZoneRule::Reference ? cur_dn[i] : 0.0});
    }
    if (placement == ZonePlacement::Centre) {
      const auto i = static_cast<std::size_t>((n - w) / 2);
      worst = std::max(cur[i], rule == ZoneRule::Reference ? cur_dn[i] : 0.0);
    }
    out.push_back(worst);
    if (stop_above >= 0 && worst >= stop_above) break;
  }
  return out;
}

namespace {

// The largest size such that it and every smaller size stay below t (worst[k] is for
// size k + 1).
std::int64_t largest_below(const std::vector<Millis>& worst, Millis t) {
  std::int64_t best = 0;
  while (best < static_cast<std::int64_t>(worst.size()) && worst[static_cast<std::size_t>(best)] < t)
    ++best;
  return best;
}

std::int64_t largest_divisor_up_to(std::int64_t n, std::int64_t limit) {
  for (std::int64_t d = std::min(limit, n); d >= 1; --d)
    if (n % d == 0) return d;
  return 1;
}

}  // namespace

ZoneSize mems_zone_size(const MemsModel& m, const ZoneOptions& o) {
  if (!(o.threshold_ms > 0) || !std::isfinite(o.threshold_ms))
    throw ModelError(fmt::format("zone threshold {} ms is invalid; expected a time > 0", o.threshold_ms));
  const MemsSled sled(m.params(), o.spring_factor);
  ZoneSize z;
  z.rule = o.rule;
  z.threshold_ms = o.threshold_ms;
  z.spring_factor = sled.spring_factor();
  z.placement = o.placement;
  z.divisors = o.divisors;
  const auto wx = mems_zone_worst_x(sled, sled.bits_x(), o.placement, o.threshold_ms);
  const auto wy = mems_zone_worst_y(sled, o.rule, sled.bits_y(), o.placement, o.threshold_ms);
  z.zone_x_bits = largest_below(wx, o.threshold_ms);
  z.zone_y_bits = largest_below(wy, o.threshold_ms);
  if (o.divisors) {
    z.zone_x_bits = largest_divisor_up_to(sled.bits_x(), z.zone_x_bits);
    z.zone_y_bits = largest_divisor_up_to(sled.bits_y(), z.zone_y_bits);
  }
  z.worst_x_ms = z.zone_x_bits > 0 ? wx[static_cast<std::size_t>(z.zone_x_bits - 1)] : 0.0;
  z.worst_y_ms = z.zone_y_bits > 0 ? wy[static_cast<std::size_t>(z.zone_y_bits - 1)] : 0.0;
  return z;
}

}  // namespace disksched
