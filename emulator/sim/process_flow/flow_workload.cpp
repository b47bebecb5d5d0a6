#include "emulator/sim/process_flow/flow_workload.hpp"

#include <cmath>

#include <fmt/format.h>

#include "emulator/sim/process_flow/compress_program.hpp"

namespace disksched::flow {

const std::vector<SpecParam>& FlowWorkload::params() {
  static const std::vector<SpecParam> p = {
      count_param("procs", "", "compressing processes, each with its own input and output file", 2, 1, 64),
      number_param("file", "bytes", "each input file's size", 34.72 * 1024 * 1024, 4096, 64.0 * (1ull << 30)),
      number_param("ratio", "fraction", "output size / input size", 0.4704, 0.001, 1),
      number_param("cpu", "ms", "mean CPU time per input block", 24, 0, 1e6),
      number_param("jitter", "fraction", "spread of the CPU time per block (uniform +-)", 0.5, 0, 1),
      number_param("block", "bytes", "file system block, one request each", 4096, 512, 1 << 20),
      number_param("cache", "bytes", "buffer cache size (at most 1g: one slot per block is held)", 8 * 1024 * 1024,
                   4096, 1 << 30),
      number_param("daemon", "ms", "the flush daemon's period", 1000, 1e-3, 1e9),
      count_param("share", "", "the daemon walks 1/share of the cache per wake-up", 60, 1, 1e9),
      number_param("spread", "fraction", "fraction of the disk the files are spread over", 0.5, 0.001, 1),
      number_param("buffer", "bytes", "the drive's read buffer (0: none)", 64 * 1024, 0, 1 << 30),
      count_param("cpus", "", "processors", 1, 1, 256),
      number_param("switch", "ms", "context switch", 0.062, 0, 1e6),
      number_param("iointr", "ms", "I/O completion interrupt handler", 0.380, 0, 1e6),
      number_param("clock", "ms", "clock interrupt period", 10, 1e-3, 1e9),
      number_param("clockintr", "ms", "clock interrupt handler", 0.092, 0, 1e6),
      number_param("quantum", "ms", "CPU time before a process yields to a ready one (0: never)", 100, 0, 1e9),
      choice_param("preempt", "a process woken by its I/O preempts the running one", {"on", "off"}, "on"),
      count_param("seed", "", "seed of the CPU-time draws", 1, 0, 1e15),
  };
  return p;
}

FlowWorkload FlowWorkload::parse(std::string_view spec) {
  auto [name, rest] = split_spec_name(spec);
  if (name != "flow" && name != "gp93")
    throw SpecError(fmt::format("unknown process-flow workload '{}'; valid: gp93 (GP's compression workload), "
                                "flow[:{}]",
                                name, "procs=2,file=34.72m,cpu=24ms,cache=8m,..."));
  FlowWorkload w;
  w.name_ = name;
  w.values_ = spec_defaults(params());
  parse_spec_args(fmt::format("workload '{}'", name), params(), rest, w.values_);
  const double clock = w.number("clock");
  if (w.number("clockintr") >= clock)
    throw SpecError(fmt::format("workload '{}': clockintr={}ms must be shorter than clock={}ms", name,
                                w.number("clockintr"), clock));
  return w;
}

std::string FlowWorkload::spec() const { return format_spec(name_, params(), values_); }

std::uint64_t FlowWorkload::in_blocks() const {
  return static_cast<std::uint64_t>(std::ceil(number("file") / number("block")));
}

FlowConfig FlowWorkload::config(std::uint64_t capacity_bytes) const {
  FlowConfig c;
  c.system.cpus = static_cast<std::size_t>(number("cpus"));
  c.system.context_switch_ms = number("switch");
  c.system.io_handler_ms = number("iointr");
  c.system.clock_period_ms = number("clock");
  c.system.clock_handler_ms = number("clockintr");
  c.system.quantum_ms = number("quantum");
  c.system.preempt_on_wake = choice("preempt") == "on";
  const auto block = static_cast<std::uint32_t>(number("block"));
  c.block_bytes = block;
  c.cache_blocks = static_cast<std::size_t>(std::max(1.0, std::floor(number("cache") / block)));
  c.daemon_period_ms = number("daemon");
  c.daemon_share = static_cast<std::size_t>(number("share"));
  c.drive_buffer_bytes = static_cast<std::uint32_t>(number("buffer"));
  const auto procs = static_cast<std::size_t>(number("procs"));
  const std::uint64_t in = in_blocks();
  const std::uint64_t out = compress_out_blocks(in, number("ratio"));
  // Inputs 1..N, then outputs 1..N, evenly spaced; each file's inode block just before it.
  const std::size_t files = 2 * procs;
  const std::uint64_t gap =
      static_cast<std::uint64_t>(number("spread") * static_cast<double>(capacity_bytes) / files) / block * block;
  for (std::size_t f = 0; f < files; ++f) {
    const std::uint64_t blocks = f < procs ? in : out;
    const std::uint64_t offset = block + f * gap;
    if (gap < (blocks + 1) * block || offset + blocks * block > capacity_bytes)
      throw SpecError(fmt::format("workload '{}': {} files of {} blocks of {} bytes do not fit in {} of a "
                                  "{}-byte disk; make file= smaller or spread= larger",
                                  name_, files, in, block, number("spread"), capacity_bytes));
    c.files.push_back(FileExtent{offset, blocks, offset - block});
  }
  return c;
}

std::vector<std::unique_ptr<Program>> FlowWorkload::programs() const {
  std::vector<std::unique_ptr<Program>> out;
  const auto procs = static_cast<std::uint32_t>(number("procs"));
  for (std::uint32_t i = 0; i < procs; ++i) {
    CompressParams p;
    p.in_file = i;
    p.out_file = procs + i;
    p.in_blocks = in_blocks();
    p.ratio = number("ratio");
    p.cpu_ms = number("cpu");
    p.jitter = number("jitter");
    p.seed = static_cast<std::uint64_t>(number("seed")) * 1000003u + i;
    out.push_back(std::make_unique<CompressProgram>(p));
  }
  return out;
}

}  // namespace disksched::flow
