#include "predictor/device_model.hpp"

namespace disksched {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::Read: return "read";
    case Op::Write: return "write";
    case Op::Flush: return "flush";
    case Op::Trim: return "trim";
    case Op::Zero: return "zero";
    case Op::Cache: return "cache";
  }
  return "?";
}

}  // namespace disksched
