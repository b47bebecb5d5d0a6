#include "schedulers/request.hpp"

namespace disksched {

std::string_view class_name(IoClass c) {
  switch (c) {
    case IoClass::TimeCritical: return "critical";
    case IoClass::TimeLimited: return "limited";
    case IoClass::TimeNoncritical: return "noncritical";
  }
  return "?";
}

}  // namespace disksched
