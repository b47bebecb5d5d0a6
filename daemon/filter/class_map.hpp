// Which Ganger & Patt class (time-critical, time-limited with a limit, time-noncritical)
// a request belongs to. NBD carries no priority, so the class comes from what the filter
// can see (reference nbdkit-liburing.md sec. 1.13):
//   - the export name the client asked for (nbd+unix:///critical?socket=...),
//   - the I/O priority class of the client process (nbdkit_peer_pid + ioprio_get),
//   - the request's FUA flag and its operation.
//
// Rules, written `SOURCE=CLASS` and separated by commas (the value of sched-classes=):
//   SOURCE: export:NAME | ioprio:rt | ioprio:be | ioprio:idle | fua |
//           op:read | op:write | op:trim | op:zero | default
//   CLASS:  critical | limited:TIME | noncritical      (TIME: 100ms, 0.5s, 250000us)
// A connection whose export name or ioprio class has a rule gets that class for all its
// requests (export before ioprio); otherwise each request is classified by FUA, then by
// op, then `default`. Rules given replace the built-in rule for the same source; the
// built-in rules (Ganger & Patt sec. 3.1: a process waits for reads and synchronous
// writes, nobody waits for delayed writes) are:
//   export:critical=critical, export:limited=limited:100ms,
//   export:noncritical=noncritical, ioprio:rt=critical, ioprio:idle=noncritical,
//   fua=critical, op:read=critical, op:write=noncritical, op:trim=noncritical,
//   op:zero=noncritical, default=noncritical
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched {

struct ClassAssignment {
  IoClass cls = IoClass::TimeNoncritical;
  Millis limit_ms = 0.0;  // for TimeLimited
  bool operator==(const ClassAssignment&) const = default;
};

// Parses "critical", "noncritical", "limited:TIME". Throws std::invalid_argument.
ClassAssignment parse_class(std::string_view text);
std::string format_class(const ClassAssignment& c);

// The I/O priority classes of ioprio_get(2) (IOPRIO_CLASS_*).
enum class IoprioClass : std::uint8_t { None = 0, RealTime = 1, BestEffort = 2, Idle = 3 };

class ClassMap {
 public:
  // The built-in rules.
  ClassMap();
  // The built-in rules with `rules` (sched-classes= syntax) applied on top. Throws
  // std::invalid_argument naming the bad rule and what was expected.
  static ClassMap parse(std::string_view rules);

  // The class a connection imposes on all its requests, if any.
  std::optional<ClassAssignment> for_connection(std::string_view export_name,
                                                IoprioClass ioprio) const;
  // True when the export name is a class name of this map (the plugin then sees the
  // default export "" instead).
  bool is_class_export(std::string_view export_name) const;
  // The class of one request of a connection without a connection class.
  ClassAssignment for_request(Op op, std::uint32_t flags) const;

  // All rules, canonical, comma separated (for --help and the control socket).
  std::string describe() const;

 private:
  void set(const std::string& source, const ClassAssignment& c);
  std::map<std::string, ClassAssignment> exports_;
  std::map<IoprioClass, ClassAssignment> ioprio_;
  std::map<Op, ClassAssignment> ops_;
  ClassAssignment fua_;
  ClassAssignment default_;
};

}  // namespace disksched
