#include "bench/experiments/workload/workload.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "bench/experiments/trace/trace_reader.hpp"
#include "bench/experiments/workload/mixed_classes.hpp"
#include "common/spec.hpp"
#include "common/text.hpp"

namespace disksched {

// ---------------------------------------------------------------- random numbers

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) s = splitmix64(x);
}

std::uint64_t Rng::below_slow(std::uint64_t n, __uint128_t m) {
  std::uint64_t low = static_cast<std::uint64_t>(m);
  const std::uint64_t threshold = (0 - n) % n;
  while (low < threshold) {
    m = static_cast<__uint128_t>(next_u64()) * n;
    low = static_cast<std::uint64_t>(m);
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::uint64_t Rng::derive(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t x = seed ^ (0xd1b54a32d192ed03ull * (index + 1));
  splitmix64(x);
  return splitmix64(x);
}

// ---------------------------------------------------------------- spec parsing

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

SpecParam size(double def) {
  return number_param("size", "bytes", "request size", def, 1, 1ull << 31);
}
SpecParam reads(double def) {
  return number_param("reads", "fraction", "fraction of reads", def, 0, 1);
}
SpecParam align() {
  return number_param("align", "bytes", "start alignment (0: the device's sector)", 0, 0,
                      1ull << 31);
}

// Whose previous request a sequential one continues: the client's own (n streams, one
// request each in flight) or the last one any client issued (one stream with n in flight,
// as fio's iodepth and iocost_coef_gen.py's sequential loads have it).
SpecParam shared_stream() {
  SpecParam p = choice_param("stream", "sequential requests continue the client's own or the "
                             "last issued (one stream, n in flight)", {"own", "shared"}, "own");
  p.written_when_set = true;
  return p;
}

const std::vector<SpecParam>& params_of(const std::string& kind) {
  static const std::vector<SpecParam> uniform = {size(8192), reads(1.0), align()};
  static const std::vector<SpecParam> seq = {
      number_param("p", "fraction", "probability that a request starts where the previous ended",
                   0.829, 0, 1),
      size(8192), reads(1.0), align()};
  static const std::vector<SpecParam> burst = {
      count_param("len", "", "requests per burst", 32, 1, 1e6),
      number_param("span", "bytes", "the window a burst stays in", 4 << 20, 1, kInf),
      number_param("p", "fraction", "probability that a request continues the previous one", 0.7,
                   0, 1),
      number_param("gap", "ms", "time between the requests of a burst", 0, 0, kInf),
      size(4096), reads(0.9), align()};
  static const std::vector<SpecParam> closed = {
      count_param("n", "", "clients, each with one request outstanding", 16, 1, 1e6),
      number_param("think", "ms", "think time between a completion and the next request", 0, 0,
                   kInf),
      choice_param("thinkdist", "think time distribution", {"fixed", "exp"}, "fixed"),
      number_param("p", "fraction", "probability of a sequential request (per client)", 0, 0, 1),
      size(8192), reads(1.0), align(), shared_stream()};
  static const std::vector<SpecParam> trace = {
      number_param("scale", "", "trace scaling factor (divides inter-arrival times)", 1, 1e-9, kInf),
      number_param("dev", "", "keep only this device/volume/ASU (-1: all)", -1, -1, 4294967295.0),
      count_param("fold", "", "fold offsets beyond the device onto it (1) or refuse them (0)", 0,
                  0, 1),
      number_param("sector", "bytes", "sector size of the trace's block numbers (0: format's)", 0,
                   0, 1 << 20),
      choice_param("events", "blkparse: replay the D (issued) or Q (queued, merges applied) events",
                   {"d", "q"}, "d"),
      choice_param("time", "ascii, csv: the unit of the time field", {"s", "ms", "us", "ns"}, "ms"),
  };
  static const std::vector<SpecParam> none;
  if (kind == "uniform") return uniform;
  if (kind == "seq") return seq;
  if (kind == "burst") return burst;
  if (kind == "closed") return closed;
  if (kind == "trace") return trace;
  if (kind == "mixed") return mixed_params();
  return none;
}

std::string valid_keys(const std::string& kind) {
  std::string s;
  for (const auto& p : params_of(kind)) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

// The ground floor's spec parser, its errors as WorkloadError.
void parse_items(const std::string& kind, const std::vector<std::string_view>& items,
                 SpecValues& values) {
  try {
    parse_spec_items(fmt::format("workload '{}'", kind), params_of(kind), items, values);
  } catch (const SpecError& e) {
    throw WorkloadError(e.what());
  }
}

// A disk model is one device: a trace of several is refused unless dev= says which
// (or dev=all merges them on purpose).
void refuse_several_devices(const TraceData& t) {
  std::map<std::uint32_t, std::uint64_t> per_dev;
  for (const auto& r : t.records) ++per_dev[r.device];
  if (per_dev.size() < 2) return;
  std::vector<std::string> list;
  for (const auto& [d, n] : per_dev) {
    if (list.size() == 8) {
      list.push_back(fmt::format("and {} more", per_dev.size() - 8));
      break;
    }
    list.push_back(fmt::format("{}: {}", d, n));
  }
  throw WorkloadError(fmt::format(
      "trace '{}' holds requests for {} devices (device: requests {}); the model is one disk: "
      "replay one with "
      "dev=N, or merge them all onto it with dev=all", t.path, per_dev.size(),
      fmt::join(list, ", ")));
}

}  // namespace

Workload Workload::parse(std::string_view spec_text) {
  const std::string spec(trim(spec_text));
  Workload w;
  auto colon = spec.find(':');
  w.kind_ = lower(trim(spec.substr(0, colon)));
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const auto& defs = params_of(w.kind_);
  if (defs.empty())
    throw WorkloadError(fmt::format(
        "unknown workload '{}'; valid: uniform[:size=8k,reads=1.0], seq[:p=0.829], "
        "burst[:len=32,span=4m], closed:n=16[,think=5ms], mixed[:fg=1,bg=8,writers=0], "
        "trace:FORMAT:PATH[,scale=F]",
        w.kind_));
  w.values_ = spec_defaults(defs);

  if (w.kind_ != "trace") {
    if (w.kind_ == "closed" && rest.find("n=") == std::string::npos &&
        rest.find("N=") == std::string::npos)
      throw WorkloadError("workload 'closed': needs n=N (the number of clients), e.g. closed:n=16");
    parse_items(w.kind_, split(rest, ','), w.values_);
    return w;
  }

  w.parse_trace(spec, rest);
  return w;
}

void Workload::parse_trace(const std::string& spec, const std::string& rest) {
  // trace:FORMAT:PATH[,key=value...], options peeled off the end.
  auto colon2 = rest.find(':');
  if (colon2 == std::string::npos || colon2 == 0)
    throw WorkloadError(fmt::format("workload 'trace': expected trace:FORMAT:PATH, got '{}'; formats: {}",
                                    spec, fmt::join(trace_formats(), ", ")));
  trace_format_ = lower(trim(rest.substr(0, colon2)));
  const auto& formats = trace_formats();
  if (std::find(formats.begin(), formats.end(), trace_format_) == formats.end())
    throw WorkloadError(fmt::format("workload 'trace': unknown format '{}'; valid: {}",
                                    trace_format_, fmt::join(formats, ", ")));
  std::string path_and_opts = rest.substr(colon2 + 1);
  const std::vector<std::string> opts = peel_trace_options(path_and_opts);
  trace_path_ = path_and_opts;
  if (trace_path_.empty()) throw WorkloadError("workload 'trace': empty path");
  parse_items("trace", {opts.begin(), opts.end()}, values_);
  check_trace_options(opts);
  load_trace();
}

std::vector<std::string> Workload::peel_trace_options(std::string& path_and_opts) {
  const auto& defs = params_of(kind_);
  std::vector<std::string> opts;
  while (true) {
    auto comma = path_and_opts.rfind(',');
    if (comma == std::string::npos) break;
    const std::string_view tail = trim(std::string_view(path_and_opts).substr(comma + 1));
    auto eq = tail.find('=');
    if (eq == std::string::npos) break;
    std::string key = lower(trim(tail.substr(0, eq)));
    if (key == "classes") {  // a text option: ORIGIN:CLASS items joined by '/'
      if (!classes_text_.empty()) throw WorkloadError("workload 'trace': classes= given twice");
      classes_text_ = trim(tail.substr(eq + 1));
      try {
        classes_ = TraceClassMap::parse(classes_text_);
      } catch (const std::invalid_argument& e) {
        throw WorkloadError(fmt::format("workload 'trace': {}", e.what()));
      }
      if (classes_text_.empty()) classes_text_ = "default";
      path_and_opts = path_and_opts.substr(0, comma);
      continue;
    }
    if (key == "dev" && lower(trim(tail.substr(eq + 1))) == "all") {
      all_devices_ = true;  // merge every device onto the model, on purpose
      path_and_opts = path_and_opts.substr(0, comma);
      continue;
    }
    bool known = false;
    for (const auto& d : defs) known |= key == d.name;
    if (!known) {
      // Looks like an option but is not one: say so rather than treat it as a path.
      if (key.find('/') == std::string::npos && key.find('.') == std::string::npos)
        throw WorkloadError(fmt::format("workload 'trace': unknown option '{}'; valid: {}", key,
                                        valid_keys("trace")));
      break;
    }
    opts.insert(opts.begin(), std::string(tail));
    path_and_opts = path_and_opts.substr(0, comma);
  }
  return opts;
}

void Workload::check_trace_options(const std::vector<std::string>& opts) const {
  auto given = [&](std::string_view key) {
    return std::any_of(opts.begin(), opts.end(),
                       [&](const std::string& o) { return lower(o).rfind(std::string(key) + "=", 0) == 0; });
  };
  if (given("events") && trace_format_ != "blkparse")
    throw WorkloadError(fmt::format("workload 'trace': events= chooses blkparse events; a '{}' "
                                    "trace has none", trace_format_));
  if (given("time") && trace_format_ != "ascii" && trace_format_ != "csv")
    throw WorkloadError(fmt::format("workload 'trace': time= sets the unit of ascii and csv "
                                    "times; a '{}' trace's time unit is fixed", trace_format_));
  if (!classes_text_.empty() && trace_format_ != "ascii" && trace_format_ != "srt" &&
      trace_format_ != "blkparse")
    throw WorkloadError(fmt::format("workload 'trace': classes= maps the flags of ascii, srt and "
                                    "blkparse traces; a '{}' trace has none", trace_format_));
  if (given("dev") && all_devices_)
    throw WorkloadError("workload 'trace': dev= given twice");
}

void Workload::load_trace() {
  TraceOptions read_opts;
  read_opts.sector_bytes = static_cast<std::uint32_t>(number("sector"));
  read_opts.events = choice("events") == "d" ? BlkEvents::Issued : BlkEvents::Queued;
  const std::string unit = choice("time");
  read_opts.ms_per_time_unit = unit == "s" ? 1000.0 : unit == "ms" ? 1.0 : unit == "us" ? 1e-3 : 1e-6;
  auto data = std::make_shared<TraceData>(read_trace(trace_format_, trace_path_, read_opts));
  const double dev = number("dev");
  if (dev < 0 && !all_devices_) refuse_several_devices(*data);
  if (dev >= 0) {
    auto& r = data->records;
    r.erase(std::remove_if(r.begin(), r.end(),
                           [&](const TraceRecord& x) { return x.device != static_cast<std::uint32_t>(dev); }),
            r.end());
    if (!r.empty()) {
      const Millis t0 = r.front().time_ms;
      for (auto& x : r) x.time_ms -= t0;
    }
  }
  if (data->records.empty()) {
    const std::string other = dev >= 0 ? "" : guess_trace_format(trace_path_, trace_format_);
    throw WorkloadError(fmt::format(
        "workload 'trace': '{}' holds no requests to replay{}{}", trace_path_,
        dev >= 0 ? fmt::format(" for dev={}", dev) : "",
        other.empty() ? "" : fmt::format("; the file looks like a '{}' trace: try trace:{}:{}",
                                         other, other, trace_path_)));
  }
  trace_ = std::move(data);
}

double Workload::number(const std::string& key) const {
  auto it = values_.numbers_.find(key);
  if (it == values_.numbers_.end())
    throw WorkloadError(fmt::format("workload '{}' has no number parameter '{}'", kind_, key));
  return it->second;
}

const std::string& Workload::choice(const std::string& key) const {
  auto it = values_.choices_.find(key);
  if (it == values_.choices_.end())
    throw WorkloadError(fmt::format("workload '{}' has no choice parameter '{}'", kind_, key));
  return it->second;
}

std::string Workload::spec() const {
  if (kind_ != "trace") return format_spec(kind_, params_of(kind_), values_);
  std::string out = kind_ + ":" + trace_format_ + ":" + trace_path_;
  for (const auto& p : params_of(kind_)) {
    if (p.name == "dev" && number("dev") < 0) {
      if (all_devices_) out += ",dev=all";
      continue;
    }
    if (p.name == "sector" && number("sector") == 0) continue;
    if (p.name == "time" && trace_format_ != "ascii" && trace_format_ != "csv") continue;
    if (p.name == "events" && trace_format_ != "blkparse") continue;
    out += fmt::format(",{}={}", p.name, format_param_value(p, values_));
  }
  if (!classes_text_.empty() && classes_text_ != "default") out += ",classes=" + classes_text_;
  return out;
}

bool Workload::has_classes() const {
  if (kind_ == "mixed") return true;
  return kind_ == "trace" && classes_.enabled() && trace_->has_origins();
}

bool Workload::is_closed() const {
  return kind_ == "closed" || kind_ == "mixed" || (kind_ == "trace" && trace_format_ == "validate");
}

double Workload::mean_request_bytes() const {
  if (kind_ == "trace") return trace_->mean_bytes();
  if (kind_ == "mixed") return number("fg-size");  // the foreground's: the one measured first
  return number("size");
}

double Workload::trace_rate_per_s() const {
  if (kind_ != "trace" || is_closed()) return 0.0;
  return trace_->rate_per_s() * number("scale");
}

// ---------------------------------------------------------------- generators

namespace {

struct Placement {
  std::uint64_t capacity;   // usable bytes (a whole number of sectors)
  std::uint64_t align;
  std::uint32_t size;
  std::uint64_t slots;      // possible aligned starts

  Placement(const DeviceExtent& dev, double size_bytes, double align_bytes, const std::string& kind) {
    if (dev.sector_bytes == 0 || dev.capacity_bytes < dev.sector_bytes)
      throw WorkloadError(fmt::format("workload '{}': device extent of {} bytes is empty", kind,
                                      dev.capacity_bytes));
    capacity = dev.capacity_bytes / dev.sector_bytes * dev.sector_bytes;
    align = align_bytes > 0 ? static_cast<std::uint64_t>(align_bytes) : dev.sector_bytes;
    size = static_cast<std::uint32_t>(size_bytes);
    if (align % dev.sector_bytes != 0)
      throw WorkloadError(fmt::format("workload '{}': align={} is not a multiple of the device's "
                                      "{}-byte sector", kind, align, dev.sector_bytes));
    if (size > capacity)
      throw WorkloadError(fmt::format("workload '{}': size={} is larger than the device ({} bytes)",
                                      kind, size, capacity));
    slots = (capacity - size) / align + 1;
  }
  std::uint64_t random(Rng& rng) const { return rng.below(slots) * align; }
  // The start right after [prev, prev + size), wrapping to 0 at the end.
  std::uint64_t after(std::uint64_t prev_end) const {
    return prev_end + size <= capacity ? prev_end : 0;
  }
};

Op pick_op(Rng& rng, double reads) {
  if (reads >= 1.0) return Op::Read;
  if (reads <= 0.0) return Op::Write;
  return rng.uniform() < reads ? Op::Read : Op::Write;
}

// uniform and seq: Poisson arrivals, sequential with probability p.
class PoissonStream final : public ArrivalStream {
 public:
  PoissonStream(const Placement& place, double rate_per_s, double p, double reads, std::uint64_t seed)
      : place_(place), mean_gap_ms_(1000.0 / rate_per_s), p_(p), reads_(reads), rng_(seed) {}

  std::optional<Arrival> next() override {
    Arrival a;
    now_ += rng_.exponential(mean_gap_ms_);
    a.time_ms = now_;
    a.op = pick_op(rng_, reads_);
    const bool sequential = first_ ? false : (p_ > 0.0 && rng_.uniform() < p_);
    a.offset = sequential ? place_.after(prev_end_) : place_.random(rng_);
    a.length = place_.size;
    prev_end_ = a.offset + a.length;
    first_ = false;
    return a;
  }

 private:
  Placement place_;
  double mean_gap_ms_, p_, reads_;
  Rng rng_;
  Millis now_ = 0.0;
  std::uint64_t prev_end_ = 0;
  bool first_ = true;
};

// burst: bursts arrive as a Poisson process at rate/len; each burst's requests go to
// one window of `span` bytes, continuing the previous request with probability p.
class BurstStream final : public ArrivalStream {
 public:
  BurstStream(const DeviceExtent& dev, const Workload& w, double rate_per_s, std::uint64_t seed)
      : place_(dev, w.number("size"), w.number("align"), "burst"),
        len_(static_cast<std::uint64_t>(w.number("len"))),
        p_(w.number("p")), reads_(w.number("reads")), gap_(w.number("gap")), rng_(seed) {
    mean_burst_gap_ms_ = 1000.0 * static_cast<double>(len_) / rate_per_s;
    // Clamped as a double first: a span past 2^64 (span=1e308) does not fit the cast.
    std::uint64_t span = static_cast<std::uint64_t>(
        std::min(w.number("span"), static_cast<double>(place_.capacity)));
    span = std::max<std::uint64_t>(span, place_.size);
    span = std::min(span, place_.capacity);
    span_ = span;
    window_slots_ = (span - place_.size) / place_.align + 1;
    windows_ = (place_.capacity - span) / place_.align + 1;
  }

  std::optional<Arrival> next() override {
    if (left_ == 0) {
      // Not before the previous burst's last request (gap > 0): arrivals stay in order.
      burst_start_ = std::max(burst_start_ + rng_.exponential(mean_burst_gap_ms_), now_);
      now_ = burst_start_;
      window_ = rng_.below(windows_) * place_.align;
      left_ = len_;
      first_in_burst_ = true;
    } else {
      now_ += gap_;
    }
    --left_;
    Arrival a;
    a.time_ms = now_;
    a.op = pick_op(rng_, reads_);
    const bool sequential = !first_in_burst_ && p_ > 0.0 && rng_.uniform() < p_ &&
                            prev_end_ + place_.size <= window_ + span_;
    a.offset = sequential ? prev_end_ : window_ + rng_.below(window_slots_) * place_.align;
    a.length = place_.size;
    prev_end_ = a.offset + a.length;
    first_in_burst_ = false;
    return a;
  }

 private:
  Placement place_;
  std::uint64_t len_;
  double p_, reads_, gap_;
  Rng rng_;
  double mean_burst_gap_ms_ = 0;
  std::uint64_t span_ = 0, window_slots_ = 1, windows_ = 1;
  Millis burst_start_ = 0.0, now_ = 0.0;
  std::uint64_t left_ = 0, window_ = 0, prev_end_ = 0;
  bool first_in_burst_ = true;
};

class ClosedSynthetic final : public ClosedStream {
 public:
  ClosedSynthetic(const DeviceExtent& dev, const Workload& w, std::uint64_t seed)
      : place_(dev, w.number("size"), w.number("align"), "closed"),
        think_(w.number("think")), exp_(w.choice("thinkdist") == "exp"), p_(w.number("p")),
        reads_(w.number("reads")), shared_(w.choice("stream") == "shared") {
    const auto n = static_cast<std::size_t>(w.number("n"));
    for (std::size_t i = 0; i < n; ++i) clients_.push_back(Client{Rng(Rng::derive(seed, i)), 0, true});
  }

  std::size_t population() const override { return clients_.size(); }

  std::optional<ClosedStep> next(std::size_t client) override {
    Client& c = clients_.at(client);
    ClosedStep s;
    s.think_ms = think_ <= 0 ? 0.0 : (exp_ ? c.rng.exponential(think_) : think_);
    s.op = pick_op(c.rng, reads_);
    const bool has_prev = shared_ ? any_issued_ : !c.first;
    const bool sequential = has_prev && p_ > 0.0 && c.rng.uniform() < p_;
    s.offset = sequential ? place_.after(shared_ ? last_end_ : c.prev_end) : place_.random(c.rng);
    s.length = place_.size;
    c.prev_end = last_end_ = s.offset + s.length;
    c.first = false;
    any_issued_ = true;
    return s;
  }

 private:
  struct Client {
    Rng rng;
    std::uint64_t prev_end;
    bool first;
  };
  Placement place_;
  double think_;
  bool exp_;
  double p_, reads_;
  bool shared_;
  std::uint64_t last_end_ = 0;   // the last request issued, by any client
  bool any_issued_ = false;
  std::vector<Client> clients_;
};

// Maps a trace's byte range onto the device: modulo the capacity (fold) or refuse.
struct Folder {
  std::uint64_t capacity;
  std::uint32_t sector;
  bool fold;
  std::string path;

  void apply(std::uint64_t& offset, std::uint32_t length, std::size_t index) const {
    if (length > capacity)
      throw WorkloadError(fmt::format("trace '{}': request {} of {} bytes is larger than the device "
                                      "({} bytes)", path, index + 1, length, capacity));
    if (offset + length <= capacity) return;
    if (!fold)
      throw WorkloadError(fmt::format("trace '{}': request {} at byte {} + {} lies beyond the device "
                                      "({} bytes) and fold=0", path, index + 1, offset, length,
                                      capacity));
    offset %= capacity;
    if (offset + length > capacity) offset = (capacity - length) / sector * sector;
  }
};

// The trace's requests that end beyond the device.
struct Beyond {
  std::uint64_t count = 0, total = 0, farthest_end = 0;
  double percent() const { return total ? 100.0 * static_cast<double>(count) / static_cast<double>(total) : 0.0; }
};

Beyond beyond(const TraceData& t, std::uint64_t capacity) {
  Beyond b;
  for (const auto& r : t.records) {
    if (r.length == 0) continue;
    ++b.total;
    const std::uint64_t end = r.offset + r.length;  // the readers refuse ends past 2^64
    b.farthest_end = std::max(b.farthest_end, end);
    if (end > capacity) ++b.count;
  }
  return b;
}

std::uint64_t usable(const DeviceExtent& dev) {
  return dev.capacity_bytes / dev.sector_bytes * dev.sector_bytes;
}

// Folding is asked for (fold=1), never assumed: without it a trace that reaches beyond
// the device is refused up front, with how much of it does.
void check_fits(const TraceData& t, const DeviceExtent& dev, bool fold) {
  const Beyond b = beyond(t, usable(dev));
  if (fold || b.count == 0) return;
  throw WorkloadError(fmt::format(
      "trace '{}': {} of {} requests ({:.1f}%) lie beyond the device's {} bytes (the farthest "
      "ends at byte {}); choose a model or profile that large (--model), keep one device with "
      "dev=N, or fold them onto the device with fold=1", t.path, b.count, b.total, b.percent(),
      usable(dev), b.farthest_end));
}

// The class a trace record's origin maps to (the default class if it maps to none).
TraceClass class_of(const TraceClassMap& m, const TraceRecord& r) {
  return m.of(r.origin).value_or(TraceClass{});
}

// A trace record's op and extent as a request's (an Arrival or a ClosedStep), folded
// onto the device as the record at `index`.
template <class Req>
void take_extent(Req& q, const TraceRecord& r, const Folder& folder, std::size_t index) {
  q.op = r.op;
  q.offset = r.offset;
  q.length = r.length;
  folder.apply(q.offset, q.length, index);
}

// The walk both trace streams make: the records in order, times divided by the factor,
// each record's extent folded onto the device as the record at its index.
struct TraceCursor {
  std::shared_ptr<const TraceData> t;
  Folder folder;
  double factor;
  std::size_t i = 0;

  // The next record, or null after the last.
  const TraceRecord* next() { return i < t->records.size() ? &t->records[i++] : nullptr; }
  // `q` takes the extent of the record next() returned last.
  template <class Req>
  void take_extent_of(Req& q, const TraceRecord& r) const { take_extent(q, r, folder, i - 1); }
};

class TraceStream final : public ArrivalStream {
 public:
  TraceStream(std::shared_ptr<const TraceData> t, Folder folder, double time_factor,
              TraceClassMap classes)
      : records_{std::move(t), folder, time_factor}, classes_(classes) {}

  std::optional<Arrival> next() override {
    while (const TraceRecord* r = records_.next()) {
      if (r->length == 0) continue;  // flushes carry no extent; the simulator has no cache
      Arrival a;
      a.time_ms = r->time_ms / records_.factor;
      records_.take_extent_of(a, *r);
      const TraceClass c = class_of(classes_, *r);
      a.cls = c.cls;
      a.limit_ms = c.limit_ms;
      return a;
    }
    return std::nullopt;
  }

 private:
  TraceCursor records_;
  TraceClassMap classes_;
};

// DiskSim validate: one client, each request issued the recorded think time after the
// previous one completed.
class TraceClosed final : public ClosedStream {
 public:
  TraceClosed(std::shared_ptr<const TraceData> t, Folder folder, double time_factor)
      : records_{std::move(t), folder, time_factor} {}
  std::size_t population() const override { return 1; }
  std::optional<ClosedStep> next(std::size_t) override {
    while (const TraceRecord* r = records_.next()) {
      const Millis think = prev_think_;
      prev_think_ = r->think_ms / records_.factor;
      if (r->length == 0) continue;
      ClosedStep s;
      s.think_ms = think;
      records_.take_extent_of(s, *r);
      return s;
    }
    return std::nullopt;
  }

 private:
  TraceCursor records_;
  Millis prev_think_ = 0.0;
};

}  // namespace

std::unique_ptr<ArrivalStream> Workload::open_stream(const DeviceExtent& dev, double rate_per_s,
                                                     std::uint64_t seed) const {
  if (is_closed())
    throw WorkloadError(fmt::format("workload '{}' is closed-loop; it has no arrival stream", spec()));
  if (kind_ == "trace") {
    if (!(rate_per_s >= 0) || !std::isfinite(rate_per_s))
      throw WorkloadError(fmt::format("trace '{}': rate {} must be >= 0 (0: the trace's own timing)",
                                      trace_path_, rate_per_s));
    double factor = number("scale");
    if (rate_per_s > 0) {
      if (trace_->rate_per_s() <= 0)
        throw WorkloadError(fmt::format("trace '{}': all requests arrive at one instant, so it cannot "
                                        "be rescaled to a rate", trace_path_));
      factor = rate_per_s / trace_->rate_per_s();
    }
    check_fits(*trace_, dev, number("fold") != 0);
    Folder f{usable(dev), dev.sector_bytes, number("fold") != 0, trace_path_};
    return std::make_unique<TraceStream>(trace_, f, factor, classes_);
  }
  if (!(rate_per_s > 0) || !std::isfinite(rate_per_s))
    throw WorkloadError(fmt::format("workload '{}': needs an arrival rate > 0 requests/s (got {})",
                                    kind_, rate_per_s));
  if (kind_ == "burst") return std::make_unique<BurstStream>(dev, *this, rate_per_s, seed);
  Placement place(dev, number("size"), number("align"), kind_);
  const double p = kind_ == "seq" ? number("p") : 0.0;
  return std::make_unique<PoissonStream>(place, rate_per_s, p, number("reads"), seed);
}

std::unique_ptr<ClosedStream> Workload::closed_stream(const DeviceExtent& dev,
                                                      std::uint64_t seed) const {
  if (!is_closed())
    throw WorkloadError(fmt::format("workload '{}' is open (arrivals at a rate), not closed-loop",
                                    spec()));
  if (kind_ == "trace") {
    check_fits(*trace_, dev, number("fold") != 0);
    Folder f{usable(dev), dev.sector_bytes, number("fold") != 0, trace_path_};
    return std::make_unique<TraceClosed>(trace_, f, number("scale"));
  }
  if (kind_ == "mixed") return make_mixed_stream(dev, *this, seed);
  return std::make_unique<ClosedSynthetic>(dev, *this, seed);
}

std::vector<std::string> Workload::trace_notes(const DeviceExtent& dev) const {
  if (kind_ != "trace") return {};
  std::vector<std::string> notes = trace_->notes;
  const Beyond b = beyond(*trace_, usable(dev));
  if (b.count > 0 && number("fold") != 0)
    notes.push_back(fmt::format(
        "trace '{}': folded {} of {} requests ({:.1f}%) onto the device's {} bytes (fold=1; the "
        "farthest ends at byte {}): their positions are not the trace's, a larger profile keeps "
        "them", trace_path_, b.count, b.total, b.percent(), usable(dev), b.farthest_end));
  return notes;
}

}  // namespace disksched
