#include "daemon/filter/class_map.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/text.hpp"
#include "common/units.hpp"

namespace disksched {
namespace {

constexpr std::string_view kSourceHelp =
    "export:NAME, ioprio:rt|be|idle, fua, op:read|write|trim|zero or default";
constexpr std::string_view kClassHelp = "critical, noncritical or limited:TIME (e.g. limited:100ms)";

const std::vector<std::pair<std::string_view, Op>>& op_names() {
  static const std::vector<std::pair<std::string_view, Op>> v = {
      {"read", Op::Read}, {"write", Op::Write}, {"trim", Op::Trim}, {"zero", Op::Zero}};
  return v;
}

const std::vector<std::pair<std::string_view, IoprioClass>>& ioprio_names() {
  static const std::vector<std::pair<std::string_view, IoprioClass>> v = {
      {"rt", IoprioClass::RealTime}, {"be", IoprioClass::BestEffort}, {"idle", IoprioClass::Idle}};
  return v;
}

}  // namespace

ClassAssignment parse_class(std::string_view text) {
  text = trim(text);
  if (text == "critical") return {IoClass::TimeCritical, 0.0};
  if (text == "noncritical") return {IoClass::TimeNoncritical, 0.0};
  if (text.substr(0, 8) == "limited:") {
    double ms = 0;
    try {
      ms = parse_duration_ms(text.substr(8));
    } catch (const UnitError& e) {
      throw std::invalid_argument(fmt::format("time limit {}", e.what()));
    }
    if (ms <= 0)
      throw std::invalid_argument(fmt::format(
          "time limit '{}' is not a duration > 0 (e.g. 100ms, 0.5s, 250us)", text.substr(8)));
    return {IoClass::TimeLimited, ms};
  }
  if (text == "limited")
    throw std::invalid_argument("class 'limited' needs a time limit: limited:TIME, e.g. limited:100ms");
  throw std::invalid_argument(fmt::format("unknown class '{}'; valid: {}", text, kClassHelp));
}

std::string format_class(const ClassAssignment& c) {
  if (c.cls == IoClass::TimeLimited) return fmt::format("limited:{}ms", c.limit_ms);
  return std::string(class_name(c.cls));
}

ClassMap::ClassMap() {
  exports_["critical"] = {IoClass::TimeCritical, 0.0};
  exports_["limited"] = {IoClass::TimeLimited, 100.0};
  exports_["noncritical"] = {IoClass::TimeNoncritical, 0.0};
  ioprio_[IoprioClass::RealTime] = {IoClass::TimeCritical, 0.0};
  ioprio_[IoprioClass::Idle] = {IoClass::TimeNoncritical, 0.0};
  fua_ = {IoClass::TimeCritical, 0.0};
  ops_[Op::Read] = {IoClass::TimeCritical, 0.0};
  ops_[Op::Write] = {IoClass::TimeNoncritical, 0.0};
  ops_[Op::Trim] = {IoClass::TimeNoncritical, 0.0};
  ops_[Op::Zero] = {IoClass::TimeNoncritical, 0.0};
  default_ = {IoClass::TimeNoncritical, 0.0};
}

void ClassMap::set(const std::string& source, const ClassAssignment& c) {
  std::string_view s = source;
  if (s.substr(0, 7) == "export:") {
    if (s.size() == 7) throw std::invalid_argument("rule 'export:' needs an export name");
    exports_[std::string(s.substr(7))] = c;
    return;
  }
  if (s.substr(0, 7) == "ioprio:") {
    for (auto& [name, cls] : ioprio_names())
      if (s.substr(7) == name) {
        ioprio_[cls] = c;
        return;
      }
    throw std::invalid_argument(
        fmt::format("unknown ioprio class '{}'; valid: rt, be, idle", s.substr(7)));
  }
  if (s.substr(0, 3) == "op:") {
    for (auto& [name, op] : op_names())
      if (s.substr(3) == name) {
        ops_[op] = c;
        return;
      }
    throw std::invalid_argument(
        fmt::format("unknown op '{}'; valid: read, write, trim, zero", s.substr(3)));
  }
  if (s == "fua") {
    fua_ = c;
    return;
  }
  if (s == "default") {
    default_ = c;
    return;
  }
  throw std::invalid_argument(fmt::format("unknown source '{}'; valid: {}", s, kSourceHelp));
}

ClassMap ClassMap::parse(std::string_view rules) {
  ClassMap m;
  std::size_t pos = 0;
  while (pos <= rules.size()) {
    std::size_t comma = rules.find(',', pos);
    if (comma == std::string_view::npos) comma = rules.size();
    std::string_view rule = trim(rules.substr(pos, comma - pos));
    pos = comma + 1;
    if (rule.empty()) continue;
    const auto eq = rule.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument(
          fmt::format("rule '{}' has no '=' (write SOURCE=CLASS, SOURCE one of {})", rule,
                      kSourceHelp));
    try {
      m.set(std::string(trim(rule.substr(0, eq))), parse_class(rule.substr(eq + 1)));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("rule '{}': {}", rule, e.what()));
    }
  }
  return m;
}

std::optional<ClassAssignment> ClassMap::for_connection(std::string_view export_name,
                                                        IoprioClass ioprio) const {
  if (auto it = exports_.find(std::string(export_name)); it != exports_.end()) return it->second;
  if (ioprio == IoprioClass::None) ioprio = IoprioClass::BestEffort;
  if (auto it = ioprio_.find(ioprio); it != ioprio_.end()) return it->second;
  return std::nullopt;
}

bool ClassMap::is_class_export(std::string_view export_name) const {
  return exports_.count(std::string(export_name)) != 0;
}

ClassAssignment ClassMap::for_request(Op op, std::uint32_t flags) const {
  if ((flags & kFlagFua) != 0) return fua_;
  if (auto it = ops_.find(op); it != ops_.end()) return it->second;
  return default_;
}

std::string ClassMap::describe() const {
  std::string s;
  auto add = [&](std::string_view source, const ClassAssignment& c) {
    s += fmt::format("{}{}={}", s.empty() ? "" : ",", source, format_class(c));
  };
  for (auto& [name, c] : exports_) add("export:" + name, c);
  for (auto& [name, cls] : ioprio_names())
    if (auto it = ioprio_.find(cls); it != ioprio_.end()) add(fmt::format("ioprio:{}", name), it->second);
  add("fua", fua_);
  for (auto& [name, op] : op_names())
    if (auto it = ops_.find(op); it != ops_.end()) add(fmt::format("op:{}", name), it->second);
  add("default", default_);
  return s;
}

}  // namespace disksched
