// What the run's summary (stats.hpp, summarize) reads of one measured request, computed
// as it computes it: a run that keeps no records (SimConfig::keep_records false) can
// have the simulator collect these instead of the whole records (80 bytes a request
// instead of a record's ~340).
#pragma once

#include "schedulers/dispatch/request_record.hpp"

namespace disksched {

struct MeasuredSample {
  double response_ms = 0.0, wait_ms = 0.0, delay_ms = 0.0, service_ms = 0.0, queue_len = 0.0,
         seek_ms = 0.0, rotation_ms = 0.0, transfer_ms = 0.0, travel_ms = 0.0, overhead_ms = 0.0;
};

// Inline: the simulator takes one per measured completion.
inline MeasuredSample sample_of(const RequestRecord& x) {
  MeasuredSample m;
  m.response_ms = x.response_ms();
  m.wait_ms = x.wait_ms();
  m.delay_ms = x.dispatch_ms - x.arrival_ms;
  m.service_ms = x.service_ms();
  m.queue_len = x.queue_len;
  m.seek_ms = x.seek_ms;
  m.rotation_ms = x.rotation_ms;
  m.transfer_ms = x.transfer_ms;
  m.travel_ms = x.travel_ms;
  m.overhead_ms = x.overhead_ms + x.report_ms;
  return m;
}

}  // namespace disksched
