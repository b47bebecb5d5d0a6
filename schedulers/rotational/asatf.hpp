// ASATF(w): Aged Shortest Access Time First (JW sec. 5.3), also ASPTF (Hong eq. 7).
//
// JW: merit M = w * T_age - T_A / tau, the largest merit goes first; w in sectors per
// second, T_age in seconds, T_A the access time, tau the time of one sector.
// Hong: t_eff = t_pos - (w / 1000) * t_wait, the smallest goes first; t_pos and t_wait
// in ms, so w is in ms of positioning forgiven per second of waiting.
//
// Both are one ordering: minimise key = T_A - beta * T_wait (ms), with
//   form=jw:   beta = w * tau / 1000   (key = -tau * M exactly),
//   form=hong: beta = w / 1000        (key = t_eff).
// The age term is linear in the arrival time, so the cell search keeps each cell's
// oldest arrival and bounds a cell by (access-time bound) - beta * (now - oldest).
#pragma once

#include "predictor/device_model.hpp"

namespace disksched::rotational {

enum class AgingForm { JacobsonWilkes, Hong };

// beta of the key above (ms of access time per ms of waiting). Throws SpecError when
// form=jw is asked of a model without a sector time.
double asatf_beta(double w, AgingForm form, const DeviceModel& model);

}  // namespace disksched::rotational
