#include "emulator/sim/process_flow/process_flow.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "emulator/device/virtual_device.hpp"
#include "emulator/sim/process_flow/buffer_cache.hpp"
#include "emulator/sim/process_flow/buffered_drive.hpp"
#include "schedulers/dispatch/dispatch_core.hpp"

namespace disksched::flow {

namespace {

constexpr Millis kNever = std::numeric_limits<Millis>::infinity();
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

enum class EventKind { BurstEnd, IoHandlerEnd, ClockTick, ClockHandlerEnd, DaemonWake, DecisionEnd };

struct Event {
  Millis t;
  std::uint64_t order;  // tie-break: the order events were posted in
  EventKind kind;
  std::size_t cpu;
  std::uint64_t arg;    // BurstEnd: the burst's generation; IoHandlerEnd: the request
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : order > o.order; }
};

enum class ProcState { Ready, Running, Blocked, Done };

struct Proc {
  std::unique_ptr<Program> program;
  ProcState state = ProcState::Ready;
  Millis remaining = 0.0;        // CPU time left of the current burst
  std::optional<Step> retry;     // a step that found no cache slot, to run again
  unsigned ticks = 0;            // clock ticks while running since dispatched
};

struct Cpu {
  std::size_t proc = kNone;      // running (or about to run) process
  std::size_t last = kNone;      // the process it ran last
  Millis handler_until = 0.0;    // interrupt handlers run until then
  Millis run_start = 0.0;        // the process's own work starts (after a switch)
  Millis switch_start = 0.0;     // the switch to it starts (after queued handlers)
  bool switching = false;        // run_on counted a switch
  std::size_t last_before = kNone;  // `last` before that switch
  Millis burst_end = 0.0;
  std::uint64_t gen = 0;         // invalidates stale BurstEnd events
};

enum class IoKind { Raw, CacheRead, CacheWrite };

struct IoInfo {
  FlowIo io;
  IoKind kind = IoKind::Raw;
  std::size_t slot = 0;
  bool done = false;
};

}  // namespace

struct ProcessFlowSim::Impl {
  FlowConfig cfg;
  const DeviceModel& model;
  VirtualDevice device;
  BufferedDrive drive;
  DispatchCore core;
  BufferCache cache;
  std::vector<Proc> procs;
  std::vector<Cpu> cpus;
  std::deque<std::size_t> ready;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  std::uint64_t order = 0;
  std::unordered_map<std::uint64_t, IoInfo> io;
  std::unordered_map<std::uint64_t, std::uint64_t> tags;  // raw request tag -> id
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> waiters;  // request -> processes
  std::vector<std::size_t> cache_waiters;
  std::function<void(const FlowIo&)> observer;
  std::vector<std::uint64_t> dispatched;
  FlowResult result;
  std::size_t alive = 0;       // processes not yet exited
  std::size_t blocked = 0;     // processes blocked on I/O (or a cache slot)
  std::size_t daemon_pos = 0;
  unsigned quantum_ticks = 0;
  Millis last_t = 0.0;
  bool deciding = false;       // a choice is being computed on a CPU
  std::size_t io_handlers = 0; // I/O completion handlers not yet ended
  bool used = false;

  Impl(const DeviceModel& m, std::unique_ptr<Scheduler> s, FlowConfig c)
      : cfg(std::move(c)), model(m), device(m), drive(device, cfg.drive_buffer_bytes),
        core(std::move(s), m, drive, 1), cache(std::max<std::size_t>(cfg.cache_blocks, 1)) {
    const SystemParams& sp = cfg.system;
    if (sp.cpus == 0) throw std::invalid_argument("process flow: cpus must be at least 1");
    if (!(sp.clock_period_ms > 0)) throw std::invalid_argument("process flow: the clock period must be > 0");
    if (cfg.daemon_share == 0) throw std::invalid_argument("process flow: daemon share must be at least 1");
    if (!(cfg.daemon_period_ms > 0)) throw std::invalid_argument("process flow: the daemon period must be > 0");
    cpus.resize(sp.cpus);
    quantum_ticks = sp.quantum_ms > 0
                        ? static_cast<unsigned>(std::max(1.0, std::round(sp.quantum_ms / sp.clock_period_ms)))
                        : 0;
  }

  void post(Millis t, EventKind k, std::size_t cpu = 0, std::uint64_t arg = 0) {
    events.push(Event{t, order++, k, cpu, arg});
  }

  // CPU time from last_t to t: idle CPUs count as false idle while someone waits on I/O.
  void account(Millis t) {
    if (alive > 0) {
      for (const Cpu& c : cpus) {
        if (c.proc != kNone) continue;
        const Millis idle = t - std::max(last_t, c.handler_until);
        if (idle <= 0) continue;
        (blocked > 0 ? result.false_idle_ms : result.idle_ms) += idle;
      }
    }
    last_t = t;
  }

  // ---- CPUs ----

  void start_burst(std::size_t ci) {
    Cpu& c = cpus[ci];
    c.burst_end = c.run_start + procs[c.proc].remaining;
    post(c.burst_end, EventKind::BurstEnd, ci, ++c.gen);
  }

  void run_on(std::size_t ci, std::size_t p, Millis t) {
    Cpu& c = cpus[ci];
    const Millis start = std::max(t, c.handler_until);
    Millis sw = 0.0;
    if (c.last != kNone && c.last != p) {
      sw = cfg.system.context_switch_ms;
      ++result.context_switches;
    }
    c.last_before = c.last;
    c.last = p;
    c.proc = p;
    c.switch_start = start;
    c.switching = sw > 0;
    c.run_start = start + sw;
    procs[p].state = ProcState::Running;
    procs[p].ticks = 0;
    start_burst(ci);
  }

  void dispatch(std::size_t ci, Millis t) {
    if (cpus[ci].proc != kNone || ready.empty()) return;
    const std::size_t p = ready.front();
    ready.pop_front();
    run_on(ci, p, t);
  }

  // Takes the running process off CPU ci at t (after the handlers queued there).
  std::size_t preempt(std::size_t ci, Millis t) {
    Cpu& c = cpus[ci];
    const std::size_t p = c.proc;
    if (t < c.run_start) {
      // Not started yet: its whole burst is left, and a switch still waiting behind the
      // handlers never happens.
      procs[p].remaining = c.burst_end - c.run_start;
      if (c.switching && t <= c.switch_start) {
        --result.context_switches;
        c.last = c.last_before;
      }
    } else {
      // The handlers still queued after t were added to the burst's end.
      const Millis pending = std::max(0.0, c.handler_until - t);
      procs[p].remaining = std::max(0.0, c.burst_end - t - pending);
    }
    procs[p].state = ProcState::Ready;
    c.proc = kNone;
    ++c.gen;
    return p;
  }

  // Kernel work of `ms` on CPU ci from t, after the handlers already queued there; the
  // running process's burst ends that much later. Returns when the work ends.
  Millis charge(std::size_t ci, Millis t, Millis ms) {
    Cpu& c = cpus[ci];
    const Millis start = std::max(t, c.handler_until);
    c.handler_until = start + ms;
    if (c.proc != kNone) {
      if (c.run_start >= start) c.run_start += ms;
      c.burst_end += ms;
      post(c.burst_end, EventKind::BurstEnd, ci, ++c.gen);
    }
    return c.handler_until;
  }

  void interrupt(std::size_t ci, Millis t, Millis handler_ms, EventKind end, std::uint64_t arg) {
    post(charge(ci, t, handler_ms), end, ci, arg);
  }

  // The CPU that takes an I/O interrupt: the first idle one, else CPU 0.
  std::size_t interrupt_cpu(Millis t) const {
    for (std::size_t i = 0; i < cpus.size(); ++i)
      if (cpus[i].proc == kNone && cpus[i].handler_until <= t) return i;
    for (std::size_t i = 0; i < cpus.size(); ++i)
      if (cpus[i].proc == kNone) return i;
    return 0;
  }

  void wake(std::size_t p, std::size_t handler_cpu, Millis t) {
    --blocked;
    procs[p].state = ProcState::Ready;
    for (std::size_t i = 0; i < cpus.size(); ++i)
      if (cpus[i].proc == kNone) {
        run_on(i, p, t);
        return;
      }
    if (cfg.system.preempt_on_wake) {
      ready.push_front(preempt(handler_cpu, t));
      run_on(handler_cpu, p, t);
      return;
    }
    ready.push_back(p);
  }

  void block(std::size_t p, std::size_t ci, Millis t) {
    procs[p].state = ProcState::Blocked;
    ++blocked;
    cpus[ci].proc = kNone;
    ++cpus[ci].gen;
    dispatch(ci, t);
  }

  // ---- requests ----

  std::uint64_t issue(std::size_t p, Millis t, Op op, std::uint64_t offset, std::uint32_t length,
                      IoClass cls, IoKind kind, std::size_t slot) {
    const std::uint64_t id = core.admit(RequestRecord::arriving(op, offset, length, cls), t);
    IoInfo& in = io[id];
    in.io.id = id;
    in.io.cls = cls;
    in.io.op = op;
    in.io.offset = offset;
    in.io.process = p;
    in.io.arrival_ms = t;
    in.kind = kind;
    in.slot = slot;
    return id;
  }

  // Process p needs request `id` at t: true when it is done (go on), else it waits.
  bool need(std::size_t p, std::uint64_t id, Millis t) {
    IoInfo& in = io.at(id);
    if (in.io.needed_ms < 0) {
      in.io.needed_ms = t;
      if (in.io.cls == IoClass::TimeLimited) {
        ++result.tl_needed;
        result.sum_limit_ms += t - in.io.arrival_ms;
        if (in.done) ++result.tl_in_time;
      }
    }
    if (in.done) return true;
    waiters[id].push_back(p);
    return false;
  }

  std::uint64_t block_offset(std::uint32_t file, std::uint64_t block) const {
    const FileExtent& f = cfg.files.at(file);
    if (block >= f.blocks)
      throw std::invalid_argument(fmt::format("process flow: block {} is past the end of file {} ({} blocks)",
                                              block, file, f.blocks));
    return f.offset + block * cfg.block_bytes;
  }

  void read_ahead(std::size_t p, std::uint32_t file, std::uint64_t block, Millis t) {
    if (file >= cfg.files.size() || block >= cfg.files[file].blocks) return;
    const BlockKey key{file, block};
    if (cache.find(key)) return;
    const auto slot = cache.claim(key);
    if (!slot) return;  // no room: no read-ahead
    const std::uint64_t id = issue(p, t, Op::Read, block_offset(file, block), cfg.block_bytes,
                                   IoClass::TimeLimited, IoKind::CacheRead, *slot);
    cache.set_reading(*slot, id, true);
  }

  // Runs one step of process p on CPU ci at t. Returns true when p may go on at once.
  bool step(std::size_t p, std::size_t ci, const Step& s, Millis t) {
    Proc& pr = procs[p];
    switch (s.kind) {
      case Step::Kind::Compute:
        pr.remaining = s.ms;
        cpus[ci].run_start = std::max(t, cpus[ci].handler_until);
        start_burst(ci);
        return false;
      case Step::Kind::Read: {
        const BlockKey key{s.file, s.block};
        if (const auto i = cache.find(key)) {
          cache.touch(*i);
          const std::uint64_t request = cache.slot(*i).request;
          if (cache.slot(*i).read_ahead) {  // FFS: using the read-ahead block reads the next one ahead
            cache.used(*i);
            read_ahead(p, s.file, s.block + 1, t);
          }
          // The read that brought this block in: a time-limited one ends its limit here.
          const auto it = io.find(request);
          if (it != io.end() && it->second.kind == IoKind::CacheRead && it->second.slot == *i &&
              it->second.io.offset == block_offset(s.file, s.block)) {
            if (need(p, request, t)) return true;
            block(p, ci, t);
            return false;
          }
          return true;
        }
        const auto slot = cache.claim(key);
        if (!slot) return wait_for_cache(p, ci, s, t);
        const std::uint64_t id = issue(p, t, Op::Read, block_offset(s.file, s.block), cfg.block_bytes,
                                       IoClass::TimeCritical, IoKind::CacheRead, *slot);
        cache.set_reading(*slot, id, false);
        read_ahead(p, s.file, s.block + 1, t);
        need(p, id, t);
        block(p, ci, t);
        return false;
      }
      case Step::Kind::Write: {
        const BlockKey key{s.file, s.block};
        auto i = cache.find(key);
        if (!i) i = cache.claim(key);
        if (!i) return wait_for_cache(p, ci, s, t);
        (void)block_offset(s.file, s.block);
        cache.set_dirty(*i);
        return true;
      }
      case Step::Kind::Create: {
        const std::uint64_t id = issue(p, t, Op::Write, cfg.files.at(s.file).inode_offset, cfg.block_bytes,
                                       IoClass::TimeCritical, IoKind::Raw, 0);
        need(p, id, t);
        block(p, ci, t);
        return false;
      }
      case Step::Kind::Io: {
        const std::uint64_t id = issue(p, t, s.op, s.offset, s.length, s.cls, IoKind::Raw, 0);
        tags[s.tag] = id;
        if (s.cls != IoClass::TimeCritical) return true;
        need(p, id, t);
        block(p, ci, t);
        return false;
      }
      case Step::Kind::Need: {
        const auto it = tags.find(s.tag);
        if (it == tags.end())
          throw std::invalid_argument(fmt::format("process flow: process {} needs request tag {}, never issued",
                                                  p, s.tag));
        if (need(p, it->second, t)) return true;
        block(p, ci, t);
        return false;
      }
      case Step::Kind::Exit:
        pr.state = ProcState::Done;
        cpus[ci].proc = kNone;
        ++cpus[ci].gen;
        if (--alive == 0) result.execution_ms = t;
        dispatch(ci, t);
        return false;
    }
    return false;
  }

  bool wait_for_cache(std::size_t p, std::size_t ci, const Step& s, Millis t) {
    ++result.cache_waits;
    procs[p].retry = s;
    cache_waiters.push_back(p);
    block(p, ci, t);
    return false;
  }

  // Process p, on CPU ci, finished its burst at t: run its steps until it computes,
  // blocks or exits.
  void advance(std::size_t p, std::size_t ci, Millis t) {
    procs[p].remaining = 0.0;
    for (;;) {
      Step s;
      if (procs[p].retry) {
        s = *procs[p].retry;
        procs[p].retry.reset();
      } else {
        s = procs[p].program->next();
      }
      if (!step(p, ci, s, t)) return;
    }
  }

  // ---- events ----

  void device_completion(Millis t) {
    const BufferedDrive::InService& s = drive.next();
    const BufferedDrive::InService done = s;
    const RequestRecord& rec = core.retire(done.id, t, true);
    result.sum_delay_ms += rec.dispatch_ms - rec.arrival_ms;
    IoInfo& in = io.at(done.id);
    in.io.completion_ms = t;
    in.io.hit = done.hit;
    const double response = t - in.io.arrival_ms;
    result.classes[static_cast<std::size_t>(in.io.cls)].add(response);
    ++result.requests;
    result.buffer_hits += done.hit;
    result.sum_access_ms += t - done.start_ms;
    result.sum_seek_cylinders += static_cast<double>(done.seek_cylinders);
    result.sum_seek_ms += done.seek_ms;
    result.sum_response_ms += response;
    result.last_io_ms = t;
    ++result.io_interrupts;
    ++io_handlers;
    interrupt(interrupt_cpu(t), t, cfg.system.io_handler_ms, EventKind::IoHandlerEnd, done.id);
  }

  void io_done(std::size_t ci, std::uint64_t id, Millis t) {
    IoInfo& in = io.at(id);
    in.done = true;
    in.io.done_ms = t;
    if (in.kind != IoKind::Raw) {
      // A read or a write-back done: its slot can be reused, so waiters for one try again.
      const auto busy = in.kind == IoKind::CacheRead ? BufferCache::State::Reading : BufferCache::State::Writing;
      if (cache.slot(in.slot).request == id && cache.slot(in.slot).state == busy) cache.set_clean(in.slot);
      std::vector<std::size_t> w;
      w.swap(cache_waiters);
      for (std::size_t p : w) wake(p, ci, t);
    }
    if (observer) observer(in.io);
    if (auto it = waiters.find(id); it != waiters.end()) {
      std::vector<std::size_t> w = std::move(it->second);
      waiters.erase(it);
      for (std::size_t p : w) wake(p, ci, t);
    }
  }

  void clock_done(std::size_t ci, Millis t) {
    Cpu& c = cpus[ci];
    if (c.proc == kNone) return;
    Proc& p = procs[c.proc];
    if (quantum_ticks == 0 || ++p.ticks < quantum_ticks || ready.empty()) return;
    if (c.handler_until > t) return;  // decide after the last handler
    ready.push_back(preempt(ci, t));
    dispatch(ci, t);
  }

  // Nothing can ever move again: processes wait, none runs or is ready, the disk has
  // nothing to do and the daemon nothing to write.
  bool stuck() const {
    if (alive == 0 || !ready.empty() || core.queued() > 0 || core.in_flight() > 0 || cache.dirty() > 0 ||
        io_handlers > 0 || deciding)
      return false;
    for (const Cpu& c : cpus)
      if (c.proc != kNone) return false;
    return true;
  }

  void daemon(Millis t) {
    if (stuck())
      throw std::logic_error(fmt::format("process flow: {} process(es) wait for what can never come "
                                         "(at t = {:.1f} ms)", alive, t));
    const std::size_t n = (cache.size() + cfg.daemon_share - 1) / cfg.daemon_share;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (daemon_pos + k) % cache.size();
      const BufferCache::Slot& sl = cache.slot(i);
      if (sl.state != BufferCache::State::Dirty) continue;
      const std::uint64_t id = issue(kNone, t, Op::Write, block_offset(sl.key.file, sl.key.block),
                                     cfg.block_bytes, IoClass::TimeNoncritical, IoKind::CacheWrite, i);
      cache.set_writing(i, id);
    }
    daemon_pos = (daemon_pos + n) % cache.size();
    if (alive > 0 || cache.dirty() > 0) post(t + cfg.daemon_period_ms, EventKind::DaemonWake);
  }

  // Every event of instant t is handled: the scheduler chooses if the drive is free, at
  // once, or after its decision cost on a CPU.
  void choose(Millis t) {
    if (!cfg.decision_cost) {
      dispatched.clear();
      core.pump(t, dispatched);
      return;
    }
    if (deciding || core.in_flight() > 0 || core.eligible() == 0) return;
    const Millis cost = cfg.decision_cost(core.eligible());
    result.decision_ms += cost;
    deciding = true;
    // The driver chooses first thing (the completion's own handler runs after), so the
    // drive waits for the choice alone; the CPU pays for it either way.
    charge(interrupt_cpu(t), t, cost);
    post(t + cost, EventKind::DecisionEnd);
  }

  FlowResult run() {
    if (used) throw std::logic_error("process flow: run() may be called once");
    used = true;
    alive = procs.size();
    for (std::size_t p = 0; p < procs.size(); ++p) ready.push_back(p);
    for (std::size_t ci = 0; ci < cpus.size(); ++ci) dispatch(ci, 0.0);
    post(cfg.system.clock_period_ms, EventKind::ClockTick);
    post(cfg.daemon_period_ms, EventKind::DaemonWake);
    for (;;) {
      const Millis t_dev = drive.next_completion_ms();
      const Millis t_ev = events.empty() ? kNever : events.top().t;
      if (t_dev == kNever && t_ev == kNever) break;
      const Millis t = std::min(t_dev, t_ev);
      account(t);
      if (t_dev <= t_ev) {
        device_completion(t);
      } else {
        const Event e = events.top();
        events.pop();
        switch (e.kind) {
          case EventKind::BurstEnd:
            if (e.arg == cpus[e.cpu].gen && cpus[e.cpu].proc != kNone) advance(cpus[e.cpu].proc, e.cpu, t);
            break;
          case EventKind::IoHandlerEnd:
            --io_handlers;
            io_done(e.cpu, e.arg, t);
            break;
          case EventKind::ClockTick:
            if (alive == 0) break;
            for (std::size_t ci = 0; ci < cpus.size(); ++ci) {
              ++result.clock_interrupts;
              interrupt(ci, t, cfg.system.clock_handler_ms, EventKind::ClockHandlerEnd, 0);
            }
            post(t + cfg.system.clock_period_ms, EventKind::ClockTick);
            break;
          case EventKind::ClockHandlerEnd:
            clock_done(e.cpu, t);
            break;
          case EventKind::DaemonWake:
            daemon(t);
            break;
          case EventKind::DecisionEnd:
            deciding = false;
            dispatched.clear();
            core.pump(t, dispatched);
            break;
        }
      }
      const Millis t_next = std::min(drive.next_completion_ms(), events.empty() ? kNever : events.top().t);
      if (t_next > t) choose(t);
    }
    if (alive > 0)
      throw std::logic_error(fmt::format("process flow: {} process(es) never finished (deadlock)", alive));
    return result;
  }
};

ProcessFlowSim::ProcessFlowSim(const DeviceModel& model, std::unique_ptr<Scheduler> scheduler, FlowConfig cfg)
    : impl_(std::make_unique<Impl>(model, std::move(scheduler), std::move(cfg))) {}

ProcessFlowSim::~ProcessFlowSim() = default;

void ProcessFlowSim::add_process(std::unique_ptr<Program> program) {
  Proc p;
  p.program = std::move(program);
  impl_->procs.push_back(std::move(p));
}

void ProcessFlowSim::on_done(std::function<void(const FlowIo&)> f) { impl_->observer = std::move(f); }

FlowResult ProcessFlowSim::run() { return impl_->run(); }

}  // namespace disksched::flow
