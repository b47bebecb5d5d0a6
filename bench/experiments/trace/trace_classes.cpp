#include "bench/experiments/trace/trace_classes.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace disksched {

namespace {

constexpr Origin kOrigins[] = {Origin::Sync,     Origin::Async,   Origin::Meta,
                               Origin::Readahead, Origin::Critical, Origin::Limited,
                               Origin::Noncritical};
constexpr Millis kDefaultLimitMs = 100.0;

std::string valid_origins() {
  std::string s;
  for (Origin o : kOrigins) s += (s.empty() ? "" : ", ") + std::string(origin_name(o));
  return s;
}

// "50ms", "0.2s", "50" (ms).
Millis parse_limit(std::string_view item, std::string_view text) {
  const std::string t(text);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  const std::string unit(end);
  if (end == t.c_str() || !std::isfinite(v) || v <= 0 ||
      !(unit.empty() || unit == "ms" || unit == "s" || unit == "us"))
    throw std::invalid_argument(fmt::format(
        "classes: '{}': the limit '{}' is not a time > 0 (e.g. limited:50ms, limited:0.2s)", item,
        text));
  return unit == "s" ? v * 1000.0 : unit == "us" ? v / 1000.0 : v;
}

TraceClass parse_class(std::string_view item, std::string_view text) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = lower.find(':');
  const std::string name = lower.substr(0, colon);
  if (name == "critical" || name == "tc") {
    if (colon == std::string::npos) return {IoClass::TimeCritical, 0.0};
  } else if (name == "noncritical" || name == "tnc") {
    if (colon == std::string::npos) return {IoClass::TimeNoncritical, 0.0};
  } else if (name == "limited" || name == "tl") {
    return {IoClass::TimeLimited,
            colon == std::string::npos ? kDefaultLimitMs
                                       : parse_limit(item, std::string_view(lower).substr(colon + 1))};
  }
  throw std::invalid_argument(fmt::format(
      "classes: '{}': expected a class critical (tc), limited[:MS] (tl) or noncritical (tnc) "
      "after the origin", item));
}

}  // namespace

std::string class_text(const TraceClass& c) {
  if (c.cls == IoClass::TimeLimited) return fmt::format("limited:{}ms", c.limit_ms);
  return std::string(class_name(c.cls));
}

TraceClassMap::TraceClassMap() {
  auto set = [&](Origin o, TraceClass c) { by_origin_[static_cast<std::size_t>(o)] = c; };
  set(Origin::Critical, {IoClass::TimeCritical, 0.0});
  set(Origin::Sync, {IoClass::TimeCritical, 0.0});
  set(Origin::Meta, {IoClass::TimeCritical, 0.0});
  set(Origin::Limited, {IoClass::TimeLimited, kDefaultLimitMs});
  set(Origin::Readahead, {IoClass::TimeLimited, kDefaultLimitMs});
  set(Origin::Noncritical, {IoClass::TimeNoncritical, 0.0});
  set(Origin::Async, {IoClass::TimeNoncritical, 0.0});
}

TraceClassMap TraceClassMap::parse(std::string_view text) {
  TraceClassMap m;
  if (text.empty()) return m;
  if (text == "none") {
    m.enabled_ = false;
    return m;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto slash = text.find('/', pos);
    const std::string_view item =
        text.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    pos = slash == std::string_view::npos ? text.size() + 1 : slash + 1;
    const auto colon = item.find(':');
    if (item.empty() || colon == std::string_view::npos)
      throw std::invalid_argument(fmt::format(
          "classes: '{}': expected ORIGIN:CLASS (e.g. readahead:limited:50ms), items joined by "
          "'/', or 'none'", item));
    const std::string_view origin = item.substr(0, colon);
    bool found = false;
    for (Origin o : kOrigins) {
      if (origin_name(o) != origin) continue;
      m.by_origin_[static_cast<std::size_t>(o)] = parse_class(item, item.substr(colon + 1));
      found = true;
    }
    if (!found)
      throw std::invalid_argument(fmt::format("classes: '{}': unknown origin '{}'; valid: {}", item,
                                              origin, valid_origins()));
  }
  return m;
}

std::optional<TraceClass> TraceClassMap::of(Origin o) const {
  if (!enabled_ || o == Origin::None) return std::nullopt;
  return by_origin_[static_cast<std::size_t>(o)];
}

std::string TraceClassMap::spec() const {
  if (!enabled_) return "none";
  std::vector<std::string> items;
  for (Origin o : kOrigins)
    items.push_back(fmt::format("{}:{}", origin_name(o), class_text(*of(o))));
  return fmt::format("{}", fmt::join(items, "/"));
}

}  // namespace disksched
