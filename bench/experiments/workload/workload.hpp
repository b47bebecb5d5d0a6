// Workloads: what requests arrive, where, and when.
//
// One spec string names a workload, the same for the simulator (`disksched sim`,
// `sweep`, `repro`) and the live load generator (`disksched replay`), so a result in
// virtual time and a run against a real device can be compared request for request:
// the same spec, device extent and seed give the same stream, byte for byte, on any
// machine (the random numbers come from our own generator and our own distribution
// code, never from <random>'s implementation-defined distributions).
//
// Specs, in the ground floor's spec language (common/spec.hpp: sizes take b/k/m/g,
// durations need a unit ns/us/ms/s, fractions 0.25 or 25%):
//   uniform[:size=8k,reads=1.0,align=512]
//       JW sec. 6: start uniform over the device, fixed size, Poisson arrivals.
//   seq[:p=0.829,size=8k,reads=1.0,align=512]
//       Hong sec. 7: with probability p a request starts where the previous one
//       ended ("logical sequentiality"), else it starts uniformly at random.
//       Hong's server trace: p=0.005; user trace: p=0.829.
//   burst[:size=4k,reads=0.9,len=32,span=2m,p=0.7,gap=...]
//       bursts of `len` requests at once, each burst inside a random window of
//       `span` bytes, sequential within the burst with probability p (the documented
//       stand-in for Deodhar & Naik's boot workload; see bench/experiments/RESULTS.md).
//   closed:n=16[,think=5ms,thinkdist=fixed|exp,p=0,size=8k,reads=1.0,align=512,stream=own]
//       N clients, each with one request outstanding; after a completion the client
//       thinks, then issues its next request (addresses as `seq` with probability p,
//       so p=0 is uniform). A sequential request continues the client's own previous
//       one (stream=own: N streams) or the last one issued by any (stream=shared: one
//       stream N deep, as fio's iodepth).
//   mixed[:fg=1,fg-size=4k,fg-think=0ms,bg=8,bg-size=1m,writers=0,writer-size=4k,writer-think=0ms]
//       closed loop with classes: time-critical random readers beside a time-noncritical
//       scrub and random writers (mixed_classes.hpp).
//   trace:FORMAT:PATH[,scale=F,dev=N|all,fold=0|1,sector=B,events=D|Q,time=ms|us|ns|s,
//                     classes=none|ORIGIN:CLASS/...]
//       replay a trace file. FORMAT: ascii (DiskSim), validate (DiskSim, closed loop
//       depth 1 with the recorded think time), msr (MSR Cambridge CSV), spc (UMass /
//       SPC CSV), blkparse (blkparse text), srt (HP SRT 1.3 binary), csv (ours; see
//       trace_reader.hpp). scale=F divides the trace's inter-arrival times by F
//       (Hong's trace scaling factor); dev=N keeps one device/volume/ASU (a trace of
//       several is refused without it; dev=all merges them); a request beyond the
//       device is an error unless fold=1 folds offsets onto the device's capacity;
//       sector=B overrides the trace's sector size; events= chooses blkparse's D
//       (default) or Q events; time= is the unit of ascii and csv times (default ms);
//       classes= maps what the trace says about a request to its class (ascii, srt,
//       blkparse; see trace_classes.hpp).
//       The options are taken from the end of the spec, so a path may hold ',' and ':'
//       as long as its last ','-separated part is not `key=value` with a known key.
//
// Open workloads (uniform, seq, burst, trace formats other than validate) produce a
// time-ordered stream of arrivals. For synthetic open workloads the rate is a
// parameter of the stream; for a trace, a rate R > 0 rescales the trace so its mean
// arrival rate is R (Hong's scaling factor = R / the trace's own rate) and 0 keeps
// the trace's own timing (times `scale`).
//
// Closed workloads (closed, trace:validate) have a population of clients; each
// client's next request comes with the think time that precedes it.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/experiments/trace/trace_classes.hpp"
#include "common/spec.hpp"
#include "emulator/sim/arrivals.hpp"
#include "predictor/device_model.hpp"

namespace disksched {

class WorkloadError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The part of a device a workload needs: where requests may go.
struct DeviceExtent {
  std::uint64_t capacity_bytes = 0;
  std::uint32_t sector_bytes = 512;
  static DeviceExtent of(const DeviceModel& m) { return {m.capacity_bytes(), m.sector_bytes()}; }
};

// Arrival, ClosedStep, ArrivalStream and ClosedStream: emulator/sim/arrivals.hpp (the
// simulator's input interfaces, which the workloads implement).

struct TraceData;  // trace_reader.hpp

class Workload {
 public:
  // Parses and validates `spec`; a trace file is read here (once: copies share it).
  // Throws WorkloadError naming the bad key or value and what was expected, or
  // TraceError (trace_reader.hpp) naming the file, line and field.
  static Workload parse(std::string_view spec);

  // The canonical spec with every parameter, e.g. "uniform:size=8192,reads=1,align=512".
  std::string spec() const;
  // "uniform", "seq", "burst", "closed" or "trace".
  const std::string& kind() const { return kind_; }
  bool is_closed() const;
  // Mean request size in bytes (for a trace: the trace's mean).
  double mean_request_bytes() const;
  // A trace's own mean arrival rate in requests per second (after `scale`), or 0.
  double trace_rate_per_s() const;

  // Open workloads. `rate_per_s` must be > 0 for synthetic workloads; for a trace it
  // rescales the timing (see above). Throws WorkloadError for a closed workload or a
  // request that does not fit the device.
  std::unique_ptr<ArrivalStream> open_stream(const DeviceExtent& dev, double rate_per_s,
                                             std::uint64_t seed) const;
  // Closed workloads. Throws WorkloadError for an open workload.
  std::unique_ptr<ClosedStream> closed_stream(const DeviceExtent& dev, std::uint64_t seed) const;

  // What the user should hear about a trace replayed on `dev` (which events became
  // requests, implausible timing, how many requests fold=1 folded), one sentence each.
  std::vector<std::string> trace_notes(const DeviceExtent& dev) const;

  // Parameters, by name (as in the spec). Throws WorkloadError for an unknown name.
  double number(const std::string& key) const;
  const std::string& choice(const std::string& key) const;
  const std::string& trace_format() const { return trace_format_; }
  const std::string& trace_path() const { return trace_path_; }
  std::shared_ptr<const TraceData> trace() const { return trace_; }
  // A trace whose requests carry classes (its format has them and classes= is not
  // none): its streams set each request's class; results can be split by class.
  bool has_classes() const;
  const TraceClassMap& class_map() const { return classes_; }

 private:
  // parse() of trace:FORMAT:PATH[,options]: the options peeled off the end of the path,
  // checked against the format, then the trace read.
  void parse_trace(const std::string& spec, const std::string& rest);
  std::vector<std::string> peel_trace_options(std::string& path_and_opts);
  void check_trace_options(const std::vector<std::string>& opts) const;
  void load_trace();

  std::string kind_;
  SpecValues values_;
  std::string trace_format_, trace_path_;
  std::shared_ptr<const TraceData> trace_;
  bool all_devices_ = false;  // dev=all
  std::string classes_text_;  // classes= as given
  TraceClassMap classes_;
};

// A small, portable, seedable generator (xoshiro256**, seeded through splitmix64):
// the same numbers on every platform and standard library.
// The draws are defined here so they inline into the streams (a few a request).
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next_u64() {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }
  // [0, 1)
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // mean > 0
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // [0, n), n > 0, unbiased: Lemire's multiply-shift with rejection.
  std::uint64_t below(std::uint64_t n) {
    const __uint128_t m = static_cast<__uint128_t>(next_u64()) * n;
    if (static_cast<std::uint64_t>(m) < n) return below_slow(n, m);
    return static_cast<std::uint64_t>(m >> 64);
  }
  // A seed for stream `index` derived from `seed` (replications, clients).
  static std::uint64_t derive(std::uint64_t seed, std::uint64_t index);

 private:
  // below()'s rejection loop, for a low half under n (rare unless n is huge).
  std::uint64_t below_slow(std::uint64_t n, __uint128_t m);

  std::uint64_t s_[4];
};

}  // namespace disksched
