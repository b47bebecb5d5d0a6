// Building requests for scheduler tests: the Location filled in from the model as
// RequestQueue::push would.
#pragma once

#include <cstdint>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched::testing {

inline Request make_request(const DeviceModel& m, std::uint64_t id, std::uint64_t lba,
                            Millis arrival, std::uint32_t sectors = 1, Op op = Op::Read) {
  Request r;
  r.id = id;
  r.op = op;
  r.offset = lba * m.sector_bytes();
  r.length = sectors * m.sector_bytes();
  r.arrival_ms = arrival;
  r.loc = m.locate(lba, sectors, op);
  return r;
}

inline HeadState head_at(std::int64_t cylinder, std::int32_t head, Millis t) {
  HeadState h;
  h.cylinder = cylinder;
  h.head = head;
  h.time_ms = t;
  return h;
}

}  // namespace disksched::testing
