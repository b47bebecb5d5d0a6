#include "emulator/sim/simulator.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

#include "schedulers/queue.hpp"

namespace disksched {

namespace {

constexpr Millis kNever = std::numeric_limits<Millis>::infinity();

// Per-request state by seq, in a ring that grows when the span between the oldest
// unfinished request and the newest one outgrows it (a starved request keeps its slot).
class Ring {
 public:
  Ring() : slots_(1024), live_(1024, false) {}

  RequestRecord& add(std::uint64_t seq) {
    if (seq - oldest_ >= slots_.size()) grow(seq);
    const std::size_t i = seq & (slots_.size() - 1);
    live_[i] = true;
    slots_[i] = RequestRecord{};
    slots_[i].seq = seq;
    end_ = seq + 1;
    return slots_[i];
  }
  RequestRecord& at(std::uint64_t seq) { return slots_[seq & (slots_.size() - 1)]; }
  void release(std::uint64_t seq) {
    live_[seq & (slots_.size() - 1)] = false;
    while (oldest_ < end_ && !live_[oldest_ & (slots_.size() - 1)]) ++oldest_;
  }

 private:
  void grow(std::uint64_t seq) {
    std::size_t n = slots_.size();
    while (seq - oldest_ >= n) n *= 2;
    std::vector<RequestRecord> s(n);
    std::vector<bool> l(n, false);
    for (std::uint64_t q = oldest_; q < end_; ++q) {
      const std::size_t old = q & (slots_.size() - 1);
      if (!live_[old]) continue;
      s[q & (n - 1)] = slots_[old];
      l[q & (n - 1)] = true;
    }
    slots_.swap(s);
    live_.swap(l);
  }

  std::vector<RequestRecord> slots_;
  std::vector<bool> live_;
  std::uint64_t oldest_ = 0;  // no unfinished request has a lower seq
  std::uint64_t end_ = 0;     // one past the newest seq
};

struct InService {
  std::uint64_t seq;
  Millis start;
  Millis end;
};

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
  const DeviceModel& model;
  RequestQueue queue;
  SimConfig cfg;
  std::function<void(const RequestRecord&)> observer;
  Ring ring;
  std::deque<InService> device;  // dispatched, in service order
  HeadState head;                // at the end of the last dispatched request
  SimResult result;
  std::uint64_t next_seq = 0;
  std::uint64_t measured_target = 0;  // 0: until the source ends
  std::uint64_t arrival_limit = 0;    // stop pulling arrivals after this many (0: none)
  bool window_open = false;
  bool used = false;

  Impl(const DeviceModel& m, std::unique_ptr<Scheduler> s, SimConfig c)
      : model(m), queue(std::move(s), m), cfg(c) {
    if (cfg.depth == 0) throw std::invalid_argument("simulator: depth must be >= 1");
    head = model.initial_state();
    head.time_ms = 0.0;
    measured_target = cfg.measured;
    if (cfg.measured > 0) {
      const std::uint64_t keep = cfg.keep_warm_max ? cfg.keep_warm_max : cfg.warmup + cfg.measured;
      arrival_limit = cfg.warmup + cfg.measured + keep;
    }
  }

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
    if (cfg.keep_records && cfg.measured > 0) result.measured.reserve(cfg.measured);
  }

  // A request enters the queue at `now`.
  void arrive(Millis now, Op op, std::uint64_t offset, std::uint32_t length, std::size_t client,
              IoClass cls, Millis limit_ms) {
    const std::uint64_t seq = next_seq++;
    RequestRecord& rec = ring.add(seq);
    rec.op = op;
    rec.cls = cls;
    rec.limit_ms = limit_ms;
    rec.offset = offset;
    rec.length = length;
    rec.phase = phase_of(seq);
    rec.client = static_cast<std::uint32_t>(client);
    rec.arrival_ms = now;
    if (rec.phase == Phase::Measured && !window_open) {
      window_open = true;
      result.window_start_ms = now;
    }
    if (window_open) ++result.arrivals_in_window;
    Request r;
    r.id = seq;
    r.op = op;
    r.offset = offset;
    r.length = length;
    r.cls = cls;
    r.limit_ms = limit_ms;
    r.arrival_ms = now;
    queue.push(r);
    ++result.arrivals;
    result.max_queue_seen = std::max(result.max_queue_seen, queue.queued());
    if (cfg.max_queue > 0 && queue.queued() > cfg.max_queue && !result.saturated) {
      result.saturated = true;
      result.saturation = fmt::format("more than {} requests waiting at t = {:.1f} ms",
                                      cfg.max_queue, now);
    }
  }

  void dispatch(Millis now) {
    while (device.size() < cfg.depth && queue.eligible() > 0) {
      HeadState h = head;
      if (device.empty()) h.time_ms = now;  // idle: the head has been waiting here
      const auto qlen = static_cast<std::uint32_t>(queue.eligible());
      auto r = queue.pick(now, h);
      if (!r) break;
      // The scheduler's stops first: each a one-sector read, as the daemon issues them.
      HeadState from = h;
      for (const std::uint64_t lba : r->travel)
        from = model.service(from, Op::Read, lba * model.sector_bytes(), model.sector_bytes()).end;
      const Cost c = model.service(from, r->op, r->offset, r->length);
      const Millis end = c.end.time_ms;
      if (!(end >= h.time_ms))
        throw std::logic_error(fmt::format("model '{}' returned a completion before the start",
                                           model.name()));
      head = c.end;
      RequestRecord& rec = ring.at(r->id);
      rec.queue_len = qlen;
      rec.dispatch_ms = now;
      rec.start_ms = h.time_ms;
      rec.completion_ms = end;
      rec.overhead_ms = c.overhead_ms;
      rec.seek_ms = c.seek_ms;
      rec.rotation_ms = c.rotation_ms;
      rec.transfer_ms = c.transfer_ms;
      rec.report_ms = c.completion_ms;
      rec.travel_ms = from.time_ms - h.time_ms;
      rec.travel_stops = r->travel.stops;
      device.push_back({r->id, h.time_ms, end});
    }
  }

  // The front request at the device completes; returns its record (valid until the
  // next arrival).
  const RequestRecord& complete() {
    const InService s = device.front();
    device.pop_front();
    queue.complete(s.seq, s.end);
    RequestRecord& rec = ring.at(s.seq);
    ++result.completions;
    if (window_open) {
      result.busy_in_window_ms += s.end - std::max(s.start, result.window_start_ms);
      ++result.completions_in_window;
    }
    if (rec.phase == Phase::Measured) {
      ++result.measured_completed;
      result.window_end_ms = s.end;
      if (cfg.keep_records) result.measured.push_back(rec);
    }
    if (observer) observer(rec);
    ring.release(s.seq);
    return rec;
  }

  void finish(Millis now) {
    result.end_ms = now;
    if (!done() && measured_target > 0 && !result.saturated) {
      result.saturated = true;
      result.saturation = "the workload ended before every measured request arrived";
    }
    std::sort(result.measured.begin(), result.measured.end(),
              [](const RequestRecord& a, const RequestRecord& b) { return a.seq < b.seq; });
  }
};

Simulator::Simulator(const DeviceModel& model, std::unique_ptr<Scheduler> scheduler, SimConfig cfg)
    : impl_(std::make_unique<Impl>(model, std::move(scheduler), cfg)) {}

Simulator::~Simulator() = default;

void Simulator::on_complete(std::function<void(const RequestRecord&)> f) {
  impl_->observer = std::move(f);
}

SimResult Simulator::run(ArrivalStream& arrivals) {
  Impl& s = *impl_;
  s.begin();
  std::optional<Arrival> next = arrivals.next();
  Millis now = 0.0;
  while (!s.done() && !s.result.saturated) {
    const Millis t_done = s.device.empty() ? kNever : s.device.front().end;
    const Millis t_arr = next ? next->time_ms : kNever;
    if (t_done == kNever && t_arr == kNever) break;  // source ended and all served
    if (t_done <= t_arr) {
      now = t_done;
      s.complete();
    } else {
      if (t_arr < now)
        throw std::invalid_argument(fmt::format(
            "arrival stream went back in time: {} ms after {} ms", t_arr, now));
      now = t_arr;
      s.arrive(now, next->op, next->offset, next->length, 0, next->cls, next->limit_ms);
      if (s.arrival_limit > 0 && s.next_seq >= s.arrival_limit && !s.done()) {
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
    const Millis t_next = std::min(s.device.empty() ? kNever : s.device.front().end,
                                   next ? next->time_ms : kNever);
    if (t_next > now) s.dispatch(now);
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
    if (s.arrival_limit > 0 && s.next_seq + issues.size() >= s.arrival_limit) {
      cap_hit = true;
      return;
    }
    pending[client] = clients.next(client);
    if (pending[client]) issues.push(Issue{after + pending[client]->think_ms, order++, client});
  };
  for (std::size_t c = 0; c < clients.population(); ++c) schedule(c, 0.0);
  Millis now = 0.0;
  while (!s.done() && !s.result.saturated) {
    const Millis t_done = s.device.empty() ? kNever : s.device.front().end;
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
    const Millis t_next = std::min(s.device.empty() ? kNever : s.device.front().end,
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
