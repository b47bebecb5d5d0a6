// The adversarial stream for starvation tests, shared by tests/schedulers and
// tests/rotational (#include "tests/schedulers/adversarial_stream.hpp").
//
// A closed loop keeps `depth` requests to a hot region queued: every completion is
// replaced at once by a new hot request, so an algorithm that always prefers what is
// near the head never runs out of near work. After `warmup` dispatches one far request
// arrives. The driver runs the device in virtual time (model.service from the head's
// real state, through a RequestQueue, exactly as the simulator does) and reports when,
// if ever, the far request was dispatched.
//
// Deterministic: the hot requests are drawn from `hot_lbas` by a generator seeded with
// `seed`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/queue.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched::testing {

struct AdversarialStream {
  std::vector<std::uint64_t> hot_lbas;  // where hot requests go (drawn uniformly)
  std::uint64_t far_lba = 0;            // the one far request
  std::uint32_t sectors = 16;           // every request's size (16 x 512 B = JW's 8 KB)
  std::size_t depth = 8;                // hot requests kept queued
  std::size_t warmup = 50;              // dispatches before the far request arrives
  std::size_t max_dispatches = 5000;    // after its arrival; then it counts as starved
  IoClass hot_class = IoClass::TimeNoncritical;
  IoClass far_class = IoClass::TimeNoncritical;
  Op op = Op::Read;                     // reads: the overlap rule never intervenes
  std::uint64_t seed = 1;
};

struct AdversarialResult {
  bool far_served = false;
  std::size_t dispatches_before_far = 0;  // after the far request arrived, before it
  Millis far_wait_ms = 0;                 // its arrival to its dispatch
  Millis max_service_ms = 0;              // longest single service seen
  std::size_t dispatches = 0;             // in total
};

inline AdversarialResult run_adversarial(std::unique_ptr<Scheduler> scheduler,
                                         const DeviceModel& model,
                                         const AdversarialStream& cfg) {
  RequestQueue q(std::move(scheduler), model);
  std::mt19937_64 rng(cfg.seed);
  std::uniform_int_distribution<std::size_t> pick_hot(0, cfg.hot_lbas.size() - 1);
  const std::uint32_t sb = model.sector_bytes();
  std::uint64_t next_id = 0;
  HeadState head = model.initial_state();
  Millis now = head.time_ms;
  auto push = [&](std::uint64_t lba, IoClass cls) {
    Request r;
    r.id = next_id++;
    r.op = cfg.op;
    r.offset = lba * sb;
    r.length = cfg.sectors * sb;
    r.cls = cls;
    r.arrival_ms = now;
    q.push(r);
    return r.id;
  };
  for (std::size_t i = 0; i < cfg.depth; ++i) push(cfg.hot_lbas[pick_hot(rng)], cfg.hot_class);

  AdversarialResult res;
  std::uint64_t far_id = 0;
  bool far_queued = false;
  Millis far_arrival = 0;
  while (res.dispatches < cfg.warmup + cfg.max_dispatches) {
    if (!far_queued && res.dispatches == cfg.warmup) {
      far_arrival = now;
      far_id = push(cfg.far_lba, cfg.far_class);
      far_queued = true;
    }
    head.time_ms = now;
    auto r = q.pick(now, head);
    if (!r) break;  // cannot happen: the loop always refills
    ++res.dispatches;
    if (far_queued && r->id == far_id) {
      res.far_served = true;
      res.far_wait_ms = now - far_arrival;
      return res;
    }
    if (far_queued) ++res.dispatches_before_far;
    Cost c = model.service(head, r->op, r->offset, r->length);
    res.max_service_ms = std::max(res.max_service_ms, c.service_ms());
    head = c.end;
    now = head.time_ms;
    q.complete(r->id, now);
    push(cfg.hot_lbas[pick_hot(rng)], cfg.hot_class);
  }
  return res;
}

// Hot blocks filling `cylinders` consecutive cylinders from `first_cylinder` of a model
// with `blocks_per_cylinder` blocks per cylinder, one every `step` blocks.
inline std::vector<std::uint64_t> hot_cylinders(std::uint64_t blocks_per_cylinder,
                                                std::uint64_t first_cylinder,
                                                std::uint64_t cylinders, std::uint64_t step) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t b = first_cylinder * blocks_per_cylinder;
       b < (first_cylinder + cylinders) * blocks_per_cylinder; b += step)
    out.push_back(b);
  return out;
}

}  // namespace disksched::testing
