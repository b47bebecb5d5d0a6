#include "emulator/sim/simulator.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

#include "emulator/device/simulated_drive.hpp"
#include "emulator/sim/busy_time.hpp"
#include "schedulers/dispatch/dispatch_core.hpp"

namespace disksched {

namespace {

constexpr Millis kNever = std::numeric_limits<Millis>::infinity();

struct Issue {
  Millis time;
  std::uint64_t order;  // tie-break: the order the issue was scheduled in
  std::size_t client;
  bool operator>(const Issue& o) const {
    return time != o.time ? time > o.time : order > o.order;
  }
};

}  // namespace

struct Simulator::Impl {
  SimConfig cfg;
  VirtualDevice device;
  std::unique_ptr<DriveQueue> drive_queue;  // null: no queue of its own
  SimulatedDrive drive;  // the device as the core's head source: in simulation it knows
  DispatchCore core;
  std::function<void(const RequestRecord&)> observer;
  SimResult result;
  BusyTime busy;  // in the measurement window
  std::vector<std::uint64_t> dispatched;  // scratch for the core
  std::vector<unsigned char> placed;      // measured records in place, by seq - warmup
  std::vector<MeasuredSample>* samples = nullptr;  // collect()'s, by seq - warmup
  std::uint64_t measured_target = 0;  // 0: until the source ends
  std::uint64_t arrival_limit = 0;    // stop pulling arrivals after this many (0: none)
  bool window_open = false;
  bool used = false;
  std::size_t next_switch = 0;  // cfg.switches[next_switch] is the next one due

  Impl(const DeviceModel& m, std::unique_ptr<Scheduler> s, SimConfig c)
      : cfg(c), device(m, c.device),
        drive_queue(c.drive_queue ? std::make_unique<DriveQueue>(device, *c.drive_queue) : nullptr),
        drive(drive_queue ? SimulatedDrive(*drive_queue) : SimulatedDrive(device)),
        core(std::move(s), m, drive, checked_depth(c.depth)),
        busy(device.write_cache() != nullptr && device.write_cache()->policy() == DestagePolicy::WhenIdle) {
    measured_target = cfg.measured;
    if (cfg.measured > 0) {
      const std::uint64_t keep = cfg.keep_warm_max ? cfg.keep_warm_max : cfg.warmup + cfg.measured;
      arrival_limit = cfg.warmup + cfg.measured + keep;
    }
  }

  static unsigned checked_depth(std::size_t depth) {
    if (depth == 0) throw std::invalid_argument("simulator: depth must be >= 1");
    return static_cast<unsigned>(depth);
  }

  std::uint64_t arrivals() const { return result.arrivals; }

  Phase phase_of(std::uint64_t seq) const {
    if (seq < cfg.warmup) return Phase::Warmup;
    if (cfg.measured == 0 || seq < cfg.warmup + cfg.measured) return Phase::Measured;
    return Phase::KeepWarm;
  }

  bool done() const {
    return measured_target > 0 && result.measured_completed >= measured_target;
  }

  void begin() {
    if (used) throw std::logic_error("simulator: run() may be called once per Simulator");
    used = true;
    // A known number of measured requests: each record goes straight to its place
    // (what a reused buffer held before is overwritten, or cut off in finish()).
    if (cfg.keep_records && cfg.measured > 0) {
      result.measured.resize(cfg.measured);
      placed.assign(cfg.measured, 0);
    } else {
      result.measured.clear();
    }
    if (samples != nullptr) {
      if (cfg.measured == 0)
        throw std::invalid_argument("simulator: collect() needs a number of measured requests");
      samples->resize(cfg.measured);
      placed.assign(cfg.measured, 0);
    }
  }

  // A request enters the queue at `now`. (Inlined, as complete(): the loop's one call
  // of each per request is then no call.)
  [[gnu::always_inline]] void arrive(Millis now, Op op, std::uint64_t offset, std::uint32_t length, std::size_t client,
              IoClass cls, Millis limit_ms) {
    // Built where the core keeps it (a record and its copy cost twice the stores).
    RequestRecord& rec = core.next_record().arrive_as(op, offset, length, cls, limit_ms);
    rec.phase = phase_of(core.next_id());
    rec.client = static_cast<std::uint32_t>(client);
    core.admit_held(rec, now);
    if (rec.phase == Phase::Measured && !window_open) {
      window_open = true;
      result.window_start_ms = now;
    }
    if (window_open) ++result.arrivals_in_window;
    ++result.arrivals;
    result.max_queue_seen = std::max(result.max_queue_seen, core.queued());
    if (cfg.max_queue > 0 && core.queued() > cfg.max_queue && !result.saturated) {
      result.saturated = true;
      result.saturation = fmt::format("more than {} requests waiting at t = {:.1f} ms",
                                      cfg.max_queue, now);
    }
  }

  // The scheduler chooses for every free place at the device.
  void dispatch(Millis now) {
    // A switch due by now takes effect before this choice (as `switch SPEC` would).
    while (next_switch < cfg.switches.size() && cfg.switches[next_switch].at_ms <= now) {
      core.switch_scheduler(cfg.switches[next_switch].spec);
      ++next_switch;
      ++result.switches_made;
    }
    dispatched.clear();
    core.pump(now, dispatched);
    drive.settle(now);
  }

  // The next request at the device completes; returns its record (valid until the next
  // arrival).
  [[gnu::always_inline]] const RequestRecord& complete() {
    const SimulatedDrive::InService& s = drive.next();
    RequestRecord& at = core.record(s.id);
    at.start_ms = s.start_ms;
    at.travel_ms = s.travel_ms;
    at.overhead_ms = s.service.cost.overhead_ms;
    at.seek_ms = s.service.cost.seek_ms;
    at.rotation_ms = s.service.cost.rotation_ms;
    at.transfer_ms = s.service.cost.transfer_ms;
    at.report_ms = s.service.cost.completion_ms;
    const Millis end = s.service.completion_ms;
    const RequestRecord& rec = core.retire(s.id, end, true);
    ++result.completions;
    if (window_open) {
      busy.command(std::max(rec.start_ms, result.window_start_ms), end);
      // A write cache's destages keep the mechanism busy between commands, and beside
      // commands served from the buffer: the busy time is the union of both.
      for (const Destage& d : s.service.destaged)
        if (d.start_ms >= 0.0 && d.media_ms > result.window_start_ms)
          busy.destage(std::max(d.start_ms, result.window_start_ms), d.media_ms);
      ++result.completions_in_window;
    }
    if (rec.phase == Phase::Measured) {
      ++result.measured_completed;
      result.window_end_ms = end;
      if (cfg.keep_records) {
        if (cfg.measured > 0) {
          result.measured[rec.seq - cfg.warmup] = rec;
          placed[rec.seq - cfg.warmup] = 1;
        } else {
          result.measured.push_back(rec);
        }
      }
      if (samples != nullptr) {
        (*samples)[rec.seq - cfg.warmup] = sample_of(rec);
        placed[rec.seq - cfg.warmup] = 1;
      }
    }
    if (observer) observer(rec);
    return rec;
  }

  Millis next_completion() const { return drive.next_completion_ms(); }

  // A saturated run: only the measured requests done, in seq order.
  template <typename T>
  void pack_placed(std::vector<T>& v) const {
    if (result.measured_completed >= cfg.measured) return;
    std::size_t n = 0;
    for (std::size_t i = 0; i < placed.size(); ++i)
      if (placed[i]) v[n++] = v[i];
    v.resize(n);
  }

  void finish(Millis now) {
    result.end_ms = now;
    result.scheduler_counters = core.scheduler_counters();
    // Destages still going after the last measured completion are past the window.
    result.busy_in_window_ms = busy.total(result.window_end_ms);
    if (!done() && measured_target > 0 && !result.saturated) {
      result.saturated = true;
      result.saturation = "the workload ended before every measured request arrived";
    }
    if (samples != nullptr) pack_placed(*samples);
    if (cfg.keep_records && cfg.measured > 0) {
      pack_placed(result.measured);
    } else {
      std::sort(result.measured.begin(), result.measured.end(),
                [](const RequestRecord& a, const RequestRecord& b) { return a.seq < b.seq; });
    }
  }
};

Simulator::Simulator(const DeviceModel& model, std::unique_ptr<Scheduler> scheduler, SimConfig cfg)
    : impl_(std::make_unique<Impl>(model, std::move(scheduler), cfg)) {}

Simulator::~Simulator() = default;

void Simulator::on_complete(std::function<void(const RequestRecord&)> f) {
  impl_->observer = std::move(f);
}

void Simulator::reuse(std::vector<RequestRecord>&& measured) {
  impl_->result.measured = std::move(measured);
}

void Simulator::collect(std::vector<MeasuredSample>& samples) { impl_->samples = &samples; }

SimResult Simulator::run(ArrivalStream& arrivals) {
  Impl& s = *impl_;
  s.begin();
  std::optional<Arrival> next = arrivals.next();
  Millis now = 0.0;
  // The next completion, asked again only when the device changed (a completion or a
  // dispatch; an arrival only queues).
  Millis t_done = s.next_completion();
  while (!s.done() && !s.result.saturated) {
    const Millis t_arr = next ? next->time_ms : kNever;
    if (t_done == kNever && t_arr == kNever) break;  // source ended and all served
    if (t_done <= t_arr) {
      now = t_done;
      s.complete();
      t_done = s.next_completion();
    } else {
      if (t_arr < now)
        throw std::invalid_argument(fmt::format(
            "arrival stream went back in time: {} ms after {} ms", t_arr, now));
      now = t_arr;
      s.arrive(now, next->op, next->offset, next->length, 0, next->cls, next->limit_ms);
      if (s.arrival_limit > 0 && s.arrivals() >= s.arrival_limit && !s.done()) {
        // Measured requests still wait after every keep-warm arrival allowed: past the knee.
        s.result.saturated = true;
        s.result.saturation = fmt::format(
            "{} keep-warm arrivals were not enough for the measured requests to complete",
            s.arrival_limit - s.cfg.warmup - s.cfg.measured);
      }
      next = arrivals.next();
    }
    // Simultaneous events (a burst, a completion and the arrival it triggers) all reach
    // the queue before the scheduler chooses.
    const Millis t_next = std::min(t_done, next ? next->time_ms : kNever);
    if (t_next > now) {
      s.dispatch(now);
      t_done = s.next_completion();
    }
  }
  s.finish(now);
  const SimResult& r = s.result;
  const double growth = static_cast<double>(r.arrivals_in_window) -
                        static_cast<double>(r.completions_in_window);
  if (!r.saturated && s.cfg.max_growth > 0 && s.done() && growth > 50 &&
      growth > s.cfg.max_growth * static_cast<double>(r.arrivals_in_window)) {
    s.result.saturated = true;
    s.result.saturation = fmt::format(
        "the queue grew by {:.0f} requests while {} arrived in the measurement window", growth,
        r.arrivals_in_window);
  }
  return std::move(s.result);
}

SimResult Simulator::run(ClosedStream& clients) {
  Impl& s = *impl_;
  s.begin();
  std::priority_queue<Issue, std::vector<Issue>, std::greater<Issue>> issues;
  std::vector<std::optional<ClosedStep>> pending(clients.population());
  std::uint64_t order = 0;
  bool cap_hit = false;
  auto schedule = [&](std::size_t client, Millis after) {
    if (s.arrival_limit > 0 && s.arrivals() + issues.size() >= s.arrival_limit) {
      cap_hit = true;
      return;
    }
    pending[client] = clients.next(client);
    if (pending[client]) issues.push(Issue{after + pending[client]->think_ms, order++, client});
  };
  for (std::size_t c = 0; c < clients.population(); ++c) schedule(c, 0.0);
  Millis now = 0.0;
  while (!s.done() && !s.result.saturated) {
    const Millis t_done = s.next_completion();
    const Millis t_issue = issues.empty() ? kNever : issues.top().time;
    if (t_done == kNever && t_issue == kNever) break;
    if (t_done <= t_issue) {
      now = t_done;
      const RequestRecord& rec = s.complete();
      schedule(rec.client, now);
    } else {
      const Issue is = issues.top();
      issues.pop();
      now = is.time;
      const ClosedStep& step = *pending[is.client];
      s.arrive(now, step.op, step.offset, step.length, is.client, step.cls, step.limit_ms);
    }
    const Millis t_next = std::min(s.next_completion(),
                                   issues.empty() ? kNever : issues.top().time);
    if (t_next > now) s.dispatch(now);
  }
  s.finish(now);
  if (cap_hit && !s.done() && !s.result.saturated) {
    s.result.saturated = true;
    s.result.saturation = "the keep-warm limit was reached before every measured request completed";
  }
  return std::move(s.result);
}

}  // namespace disksched
