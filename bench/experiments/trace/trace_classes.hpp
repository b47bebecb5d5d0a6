// Request classes from what a trace says (trace_reader.hpp, Origin): the default
// mapping and the `classes=` option that changes it.
//
// Default (GP sec. 6: a process blocks at once on a synchronous request, only when it
// needs the data on a read-ahead, never on a delayed write):
//   critical, sync, meta  -> time-critical
//   limited, readahead    -> time-limited, limit 100 ms
//   noncritical, async    -> time-noncritical
// `classes=none` replays without classes (every request time-noncritical, as a trace
// that carries no flags); `classes=ORIGIN:CLASS[/ORIGIN:CLASS...]` changes the named
// origins, CLASS being critical|tc, limited[:MS]|tl[:MS] (MS a time: 50ms, 0.2s) or
// noncritical|tnc, e.g. `classes=readahead:limited:50ms/meta:noncritical`.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "bench/experiments/trace/trace_reader.hpp"
#include "schedulers/request.hpp"

namespace disksched {

struct TraceClass {
  IoClass cls = IoClass::TimeNoncritical;
  Millis limit_ms = 0.0;  // time-limited only
  bool operator==(const TraceClass&) const = default;
};

class TraceClassMap {
 public:
  TraceClassMap();  // the default mapping
  // "" (the default), "none", or ORIGIN:CLASS items joined by '/'. Throws
  // std::invalid_argument naming the bad item and what was expected.
  static TraceClassMap parse(std::string_view text);

  // The class of a request of origin `o`; nullopt for Origin::None or classes=none.
  std::optional<TraceClass> of(Origin o) const;
  bool enabled() const { return enabled_; }
  // The canonical text, every origin listed ("none" when disabled).
  std::string spec() const;

 private:
  bool enabled_ = true;
  std::array<TraceClass, 8> by_origin_{};  // indexed by Origin
};

// "critical", "limited:100ms" or "noncritical".
std::string class_text(const TraceClass& c);

}  // namespace disksched
