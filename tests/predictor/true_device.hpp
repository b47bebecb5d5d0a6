// A device with hidden overheads for head-tracking tests: the true platter may turn at
// another phase than the model's, requests start late and completions are seen late.
#pragma once

#include <cstdint>
#include <memory>

#include "bench/experiments/workload/workload.hpp"
#include "predictor/device_model.hpp"
#include "predictor/spin.hpp"

namespace disksched::testing {

// A device with hidden overheads: starts a request `in_ms` after its dispatch, and its
// completion is observed `out_ms` after the model says it completes.
struct TrueDevice {
  std::unique_ptr<DeviceModel> model;
  Millis in_ms, out_ms;
  HeadState pos;
  Spin spin;              // how the true platter turns
  Millis busy_until = 0;  // observed completion of the last request

  TrueDevice(const char* name, double phase, Millis in, Millis out)
      : TrueDevice(load_model(name), phase, in, out) {}
  TrueDevice(std::unique_ptr<DeviceModel> m, double phase, Millis in, Millis out)
      : model(std::move(m)), in_ms(in), out_ms(out), pos(model->initial_state()),
        spin(model->rotational() ? Spin::anchored(0.0, phase, model->rotation_ms()) : Spin{}) {}
  // Serves a request dispatched at `dispatch` to an idle device; returns the observed
  // completion time.
  // `late_ms`: the completion report comes this much later than usual (a busy host).
  Millis serve(Millis dispatch, Op op, std::uint64_t offset, std::uint32_t length,
               Millis late_ms = 0.0) {
    HeadState from = pos;
    from.time_ms = dispatch + in_ms;
    from.spin = spin;
    const Cost c = model->service(from, op, offset, length);
    pos = c.end;
    return from.time_ms + c.service_ms() + out_ms + late_ms;
  }
};

struct Req {
  Op op;
  std::uint64_t offset;
  std::uint32_t length;
};

Req random_request(Rng& rng, const DeviceModel& m, std::uint32_t length = 8192) {
  const std::uint64_t slots = (m.capacity_bytes() - length) / 512;
  return {rng.below(4) == 0 ? Op::Write : Op::Read, rng.below(slots) * 512, length};
}

}  // namespace disksched::testing
