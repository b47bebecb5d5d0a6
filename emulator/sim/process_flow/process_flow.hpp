// The process-flow simulator (Ganger & Patt 1993, sec. 4): processes that compute and do
// I/O through a buffer cache, on one or more CPUs with a dispatcher, clock and I/O
// interrupts, and the disk behind the one dispatch core (schedulers/dispatch/), all in
// virtual time.
//
// The rules, as GP state them and as we had to complete them:
//  - A process runs its steps (program.hpp). A CPU burst takes its time plus every
//    interrupt handled on that CPU meanwhile. When it blocks or exits, the dispatcher
//    runs the first ready process; a CPU that starts a process other than the one it
//    ran last pays a context switch (counted; the very first start is free).
//  - Request classes (GP sec. 3): a time-critical request blocks its process at once; a
//    time-limited one only when the process needs the data: its limit is the time from
//    issue to that need, measured, never assigned, and it is "in time" if it was done
//    by then; a time-noncritical request blocks nobody. The schedulers see the class.
//  - A request is done when the I/O interrupt that reports its completion ends; then
//    its block is valid and its waiters wake. The interrupt runs on the first idle CPU,
//    else on CPU 0. A woken process takes an idle CPU; if none, with preemption on wake
//    it preempts the process on the interrupted CPU (which goes to the front of the
//    ready queue), else it queues at the back.
//  - Clock interrupts every `clock_period_ms` on every CPU; after `quantum_ms` of CPU
//    a process yields to a ready one at a clock tick.
//  - The file system (GP sec. 5.2): a read that misses the cache is time-critical and
//    also reads ahead the next block (time-limited); using a read-ahead block issues the
//    read-ahead of the next; writes only dirty the cache; the flush daemon wakes every
//    `daemon_period_ms`, walks the next 1/`daemon_share` of the cache's slots and writes
//    the dirty ones (time-noncritical); each file creation is one time-critical write.
//    A process that finds every slot dirty or in flight waits (blocked on I/O) until a
//    read or a write-back frees one. The daemon's own CPU time is not charged.
//  - False idle time: a CPU is idle while some process is blocked on I/O. Execution time:
//    the last process's exit. The run goes on until the daemon has flushed every dirty
//    block and the disk is idle, so every request's response counts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "emulator/sim/process_flow/flow_result.hpp"
#include "emulator/sim/process_flow/program.hpp"
#include "emulator/sim/process_flow/system.hpp"
#include "predictor/device_model.hpp"
#include "schedulers/scheduler.hpp"

namespace disksched::flow {

// A file's blocks lie contiguously from `offset`; its inode block at `inode_offset`.
struct FileExtent {
  std::uint64_t offset = 0;
  std::uint64_t blocks = 0;
  std::uint64_t inode_offset = 0;
};

struct FlowConfig {
  SystemParams system;
  std::uint32_t block_bytes = 4096;
  std::size_t cache_blocks = 1;       // buffer cache slots
  Millis daemon_period_ms = 1000.0;   // GP: once a second
  std::size_t daemon_share = 60;      // GP: one sixtieth of the cache per wake-up
  std::uint32_t drive_buffer_bytes = 64 * 1024;  // GP Table 2: 64 KB read buffer
  std::vector<FileExtent> files;
  // The scheduler's own CPU time to choose among `n` queued requests (empty: free). When
  // set, a choice is CPU work charged to the CPU that takes interrupts (the first idle
  // one, else CPU 0) as a handler's would be, and the drive gets the chosen request that
  // long after it became free (the choice goes first, before the completion's handler).
  // DN 2013 explain their threshold sweep by this cost.
  std::function<Millis(std::size_t n)> decision_cost;
};

// One request, from issue to done (for tests and plots).
struct FlowIo {
  std::uint64_t id = 0;
  IoClass cls = IoClass::TimeCritical;
  Op op = Op::Read;
  std::uint64_t offset = 0;
  std::size_t process = 0;     // who issued it (the daemon: SIZE_MAX)
  Millis arrival_ms = 0.0;
  Millis completion_ms = 0.0;  // at the drive
  Millis done_ms = 0.0;        // its interrupt ended
  Millis needed_ms = -1.0;     // when its process first needed it (-1: never)
  bool hit = false;            // the drive's read buffer served it
};

class ProcessFlowSim {
 public:
  // The model must outlive the simulator; the scheduler must have been built for it.
  ProcessFlowSim(const DeviceModel& model, std::unique_ptr<Scheduler> scheduler, FlowConfig cfg);
  ~ProcessFlowSim();
  ProcessFlowSim(const ProcessFlowSim&) = delete;
  ProcessFlowSim& operator=(const ProcessFlowSim&) = delete;

  // Processes are numbered in the order they are added; all are ready at time 0.
  void add_process(std::unique_ptr<Program> program);
  // Called for every request when it is done.
  void on_done(std::function<void(const FlowIo&)> f);
  // Runs once.
  FlowResult run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace disksched::flow
