#include "bench/experiments/trace/trace_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "common/csv.hpp"
#include "common/text.hpp"

namespace disksched {

double TraceData::rate_per_s() const {
  if (records.size() < 2) return 0.0;
  const Millis span = records.back().time_ms - records.front().time_ms;
  return span > 0 ? static_cast<double>(records.size() - 1) * 1000.0 / span : 0.0;
}

double TraceData::mean_bytes() const {
  if (records.empty()) return 0.0;
  double sum = 0;
  for (const auto& r : records) sum += r.length;
  return sum / static_cast<double>(records.size());
}

bool TraceData::has_origins() const {
  return std::any_of(records.begin(), records.end(),
                     [](const TraceRecord& r) { return r.origin != Origin::None; });
}

std::size_t TraceData::measured_records() const {
  return static_cast<std::size_t>(std::count_if(
      records.begin(), records.end(), [](const TraceRecord& r) { return r.has_measured_times(); }));
}

std::string_view origin_name(Origin o) {
  switch (o) {
    case Origin::None: return "none";
    case Origin::Sync: return "sync";
    case Origin::Async: return "async";
    case Origin::Meta: return "meta";
    case Origin::Readahead: return "readahead";
    case Origin::Critical: return "critical";
    case Origin::Limited: return "limited";
    case Origin::Noncritical: return "noncritical";
  }
  return "?";
}

std::string_view buffer_flag_name(BufferFlag b) {
  switch (b) {
    case BufferFlag::None: return "none";
    case BufferFlag::Hit: return "Hit";
    case BufferFlag::Miss: return "Miss";
    case BufferFlag::Doub: return "Doub";
    case BufferFlag::Trip: return "Trip";
  }
  return "?";
}

const std::vector<std::string>& trace_formats() {
  static const std::vector<std::string> f = {"ascii", "validate", "msr", "spc",
                                             "blkparse", "srt", "csv"};
  return f;
}

namespace {

// Where a field came from, for the message of a malformed line.
struct Where {
  const std::string& file;
  std::size_t line;
};

[[noreturn]] void fail(const Where& w, std::string_view field, std::string_view value,
                       std::string_view expected) {
  throw TraceError(fmt::format("{}:{}: field '{}' = '{}': expected {}", w.file, w.line, field,
                               value, expected));
}

// A read or a write as one letter of either case; anything else fails naming `field` and
// what was `expected`.
Op read_or_write(const Where& w, std::string_view field, std::string_view s,
                 std::string_view expected) {
  if (s == "R" || s == "r") return Op::Read;
  if (s == "W" || s == "w") return Op::Write;
  fail(w, field, s, expected);
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

template <typename T>
T to_uint(const Where& w, std::string_view field, std::string_view text, int base = 10) {
  T v{};
  std::string_view t = text;
  if (base == 16 && t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    fail(w, field, text, base == 16 ? "a hexadecimal integer" : "a non-negative integer");
  return v;
}

double to_double(const Where& w, std::string_view field, std::string_view text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v))
    fail(w, field, text, "a number");
  return v;
}

std::uint32_t byte_length(const Where& w, std::string_view field, std::string_view text,
                          std::uint64_t units, std::uint64_t unit_bytes) {
  if (units == 0) fail(w, field, text, "a length > 0");
  if (units > 0xffffffffull / unit_bytes) fail(w, field, text, "a length below 4 GiB");
  return static_cast<std::uint32_t>(units * unit_bytes);
}

// A block number times the sector size, refused when the byte offset would pass 2^64
// (a block of 2^55 x 512 B wraps to 0 and would be replayed at the start of the disk).
std::uint64_t byte_offset(const Where& w, std::string_view field, std::string_view text,
                          std::uint64_t units, std::uint64_t unit_bytes) {
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(units, unit_bytes, &bytes))
    fail(w, field, text,
         fmt::format("a block whose byte offset (x {} bytes) lies below 2^64", unit_bytes));
  return bytes;
}

// The request's end, offset + length, must be a byte address too.
void check_end(const Where& w, std::string_view field, std::string_view text,
               std::uint64_t offset, std::uint32_t length) {
  if (length > UINT64_MAX - offset)
    fail(w, field, text,
         fmt::format("an offset whose end (+ {} bytes) lies below 2^64 bytes", length));
}

// Times longer than this cannot be meant: the longest public block traces span a week.
constexpr double kWeekMs = 7 * 86400 * 1000.0;
constexpr double kCenturyMs = 100 * 365.25 * 86400 * 1000.0;

// An arrival time in ms, at or after the trace's start and within a century of it.
void check_arrival(const Where& w, std::string_view field, std::string_view text, Millis ms) {
  if (ms < 0) fail(w, field, text, "a time >= 0");
  if (ms > kCenturyMs) fail(w, field, text, "a time within 100 years of the trace's start");
}

// A recorded duration in microseconds: >= 0 and at most a week.
void check_duration_us(const Where& w, std::string_view field, std::string_view text, double us) {
  if (us < 0) fail(w, field, text, "a time >= 0");
  if (us > kWeekMs * 1000.0) fail(w, field, text, "a time of at most a week (6.048e11 us)");
}

// Reads lines; calls `f(Where, line)` for each that is not blank.
template <typename F>
void for_each_line(std::istream& in, const std::string& name, F&& f) {
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    f(Where{name, n}, std::string_view(line));
  }
}

// ---- DiskSim ascii: time_ms dev block size flags_hex [batch]
void read_ascii(std::istream& in, const std::string& name, std::uint32_t sector,
                double ms_per_unit, TraceData& t) {
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_ws(line);
    if (f.size() != 5 && f.size() != 6)
      fail(w, "line", line, "5 fields 'time device block size flags' (or 6 with a batch number)");
    TraceRecord r;
    r.time_ms = to_double(w, "time", f[0]) * ms_per_unit;
    check_arrival(w, "time", f[0], r.time_ms);
    r.device = to_uint<std::uint32_t>(w, "device", f[1]);
    const auto block = to_uint<std::uint64_t>(w, "block", f[2]);
    const auto size = to_uint<std::uint64_t>(w, "size", f[3]);
    const auto flags = to_uint<std::uint32_t>(w, "flags", f[4], 16);
    if (f.size() == 6) to_uint<std::uint64_t>(w, "batch", f[5]);
    r.offset = byte_offset(w, "block", f[2], block, sector);
    r.length = byte_length(w, "size", f[3], size, sector);
    check_end(w, "block", f[2], r.offset, r.length);
    r.op = (flags & 1u) ? Op::Read : Op::Write;
    r.origin = (flags & 0x2u)     ? Origin::Critical
               : (flags & 0x4u)   ? Origin::Limited
               : (flags & 0x80u)  ? Origin::Sync
               : (flags & 0x100u) ? Origin::Async
                                  : Origin::None;
    t.records.push_back(r);
  });
  // DiskSim: a request with neither the time-critical nor the time-limited bit is
  // time-noncritical, once the trace says anything about classes at all.
  if (t.has_origins())
    for (auto& r : t.records)
      if (r.origin == Origin::None) r.origin = Origin::Noncritical;
}

// ---- DiskSim validate: R|W buffer-token block size access_us think_us
void read_validate(std::istream& in, const std::string& name, std::uint32_t sector, TraceData& t) {
  Millis clock = 0.0;
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_ws(line);
    if (f.size() != 6)
      fail(w, "line", line, "6 fields 'R|W Hit|Miss|Doub|Trip block size access_us think_us'");
    TraceRecord r;
    r.op = read_or_write(w, "op", f[0], "R or W");
    if (f[1] == "Hit")
      r.buffer = BufferFlag::Hit;
    else if (f[1] == "Miss")
      r.buffer = BufferFlag::Miss;
    else if (f[1] == "Doub")
      r.buffer = BufferFlag::Doub;
    else if (f[1] == "Trip")
      r.buffer = BufferFlag::Trip;
    else
      fail(w, "buffer", f[1], "Hit, Miss, Doub or Trip");
    const auto block = to_uint<std::uint64_t>(w, "block", f[2]);
    const auto size = to_uint<std::uint64_t>(w, "size", f[3]);
    const double access_us = to_double(w, "access_us", f[4]);
    const double think_us = to_double(w, "think_us", f[5]);
    check_duration_us(w, "access_us", f[4], access_us);
    check_duration_us(w, "think_us", f[5], think_us);
    r.offset = byte_offset(w, "block", f[2], block, sector);
    r.length = byte_length(w, "size", f[3], size, sector);
    check_end(w, "block", f[2], r.offset, r.length);
    r.think_ms = think_us / 1000.0;
    r.measured_ms = access_us / 1000.0;
    // The recorded schedule: issue, access, think, next issue.
    r.time_ms = clock;
    clock += (access_us + think_us) / 1000.0;
    t.records.push_back(r);
  });
}

// ---- MSR Cambridge: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
void read_msr(std::istream& in, const std::string& name, TraceData& t) {
  std::optional<std::uint64_t> first_tick;  // subtract in integers: FILETIMEs are ~1e17
  bool first = true;
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = csv_fields(line);
    // Some copies carry the field names as a header line: skip it.
    const bool header_allowed = first;
    first = false;
    if (header_allowed && !f.empty() && (f[0] == "Timestamp" || f[0] == "timestamp")) return;
    if (f.size() != 7)
      fail(w, "line", line, "7 fields 'Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime'");
    TraceRecord r;
    const auto ticks = to_uint<std::uint64_t>(w, "Timestamp", f[0]);
    if (!first_tick) first_tick = ticks;
    // 100-ns ticks; before the first record's time is negative (sorted later).
    r.time_ms = ticks >= *first_tick ? static_cast<double>(ticks - *first_tick) / 1e4
                                     : -static_cast<double>(*first_tick - ticks) / 1e4;
    if (f[1].empty()) fail(w, "Hostname", f[1], "a host name");
    r.device = to_uint<std::uint32_t>(w, "DiskNumber", f[2]);
    std::string type(f[3]);
    for (auto& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (type == "read")
      r.op = Op::Read;
    else if (type == "write")
      r.op = Op::Write;
    else
      fail(w, "Type", f[3], "Read or Write");
    r.offset = to_uint<std::uint64_t>(w, "Offset", f[4]);
    r.length = byte_length(w, "Size", f[5], to_uint<std::uint64_t>(w, "Size", f[5]), 1);
    check_end(w, "Offset", f[4], r.offset, r.length);
    // 100-ns ticks from the request's issue to its completion, as the host saw them.
    const auto response = to_uint<std::uint64_t>(w, "ResponseTime", f[6]);
    check_duration_us(w, "ResponseTime", f[6], static_cast<double>(response) / 10.0);
    r.issued_ms = 0.0;
    r.done_ms = static_cast<double>(response) / 1e4;
    t.records.push_back(r);
  });
}

// ---- SPC / UMass: ASU,LBA,Size,Opcode,Timestamp[,ignored...]
void read_spc(std::istream& in, const std::string& name, std::uint32_t sector, TraceData& t) {
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = csv_fields(line);
    if (f.size() < 5) fail(w, "line", line, "at least 5 fields 'ASU,LBA,Size,Opcode,Timestamp'");
    TraceRecord r;
    r.device = to_uint<std::uint32_t>(w, "ASU", f[0]);
    r.offset = byte_offset(w, "LBA", f[1], to_uint<std::uint64_t>(w, "LBA", f[1]), sector);
    r.length = byte_length(w, "Size", f[2], to_uint<std::uint64_t>(w, "Size", f[2]), 1);
    check_end(w, "LBA", f[1], r.offset, r.length);
    r.op = read_or_write(w, "Opcode", f[3], "r or w");
    r.time_ms = to_double(w, "Timestamp", f[4]) * 1000.0;
    check_arrival(w, "Timestamp", f[4], r.time_ms);
    t.records.push_back(r);
  });
}

// ---- blkparse default text: dev cpu seq time pid action rwbs [sector + n] [comm]
// Requests are the Q (queued) events, or the D (issued) events if the trace has no
// Q events. Lines that are not events (blkparse's summary) are skipped; an event
// line with a bad field is an error. Device numbers are (major << 20) | minor.
bool is_dev_field(std::string_view s) {
  auto c = s.find(',');
  if (c == std::string_view::npos || c == 0 || c + 1 == s.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != c && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// The RWBS field as kernels from 2.6 on have printed it: an optional F (preflush),
// one of W, D (discard; DE secure erase), R or N (none), or F alone (a flush), then
// any of F (FUA), A (readahead), B (barrier, kernels before 2.6.37), S (sync), M (meta).
struct Rwbs {
  std::optional<Op> op;  // nullopt: no data (N, a flush)
  bool sync = false, meta = false, readahead = false, fua = false;
};

Rwbs parse_rwbs(const Where& w, std::string_view text) {
  Rwbs r;
  int kinds = 0;
  bool flush = false;
  for (char c : text) {
    switch (c) {
      case 'R': r.op = Op::Read; ++kinds; break;
      case 'W': r.op = Op::Write; ++kinds; break;
      case 'D': r.op = Op::Trim; ++kinds; break;
      case 'N': ++kinds; break;
      case 'F': (kinds == 0 ? flush : r.fua) = true; break;
      case 'E': break;
      case 'A': r.readahead = true; break;
      case 'B': break;
      case 'S': r.sync = true; break;
      case 'M': r.meta = true; break;
      default: kinds = 2;
    }
  }
  if (kinds > 1 || (kinds == 0 && !flush))
    fail(w, "rwbs", text,
         "one of R, W, D or N (or F alone, a flush), optionally after F and followed by any of "
         "F, A, B, S, M, E");
  return r;
}

// Pairs each D (issued) event with the next C (completed) event of the same device and
// extent, as blkparse's own per-request times do: C - D is the request's measured time
// from the driver's dispatch to its completion.
class Completions {
 public:
  void issued(const TraceRecord& d, std::size_t index) { pending_[key(d)].push_back(index); }
  // A C event with `c`'s device, extent and time; `ok`: its error code is 0.
  void completed(const TraceRecord& c, bool ok, std::vector<TraceRecord>& issued) {
    const auto it = pending_.find(key(c));
    if (it == pending_.end()) {
      ++unpaired_c_;
      return;
    }
    TraceRecord& d = issued[it->second.front()];
    it->second.pop_front();
    if (it->second.empty()) pending_.erase(it);
    if (!ok || c.time_ms < d.time_ms) {
      ++failed_;
      return;
    }
    d.issued_ms = 0.0;
    d.done_ms = c.time_ms - d.time_ms;
    ++paired_;
  }
  bool any() const { return paired_ + failed_ + unpaired_c_ > 0; }
  std::string note(std::size_t d_events) const {
    return fmt::format(
        "blkparse: {} of the {} D events paired with their C (completion) events (measured "
        "times C - D); {} failed or completed before they were issued, {} C events had no D",
        paired_, d_events, failed_, unpaired_c_);
  }

 private:
  using Key = std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>;
  static Key key(const TraceRecord& r) { return {r.device, r.offset, r.length}; }
  std::map<Key, std::deque<std::size_t>> pending_;
  std::uint64_t paired_ = 0, failed_ = 0, unpaired_c_ = 0;
};

// Requests are the D (issued) events by default, with the sizes the kernel's merges
// gave them, each with its measured C - D when its C event is in the trace; events=Q takes the Q (queued) events and applies the M (back) and F
// (front) merges that follow them, so both count what reached the device.
void read_blkparse(std::istream& in, const std::string& name, const TraceOptions& o,
                   TraceData& t) {
  const std::uint32_t sector = o.sector_bytes ? o.sector_bytes : 512;
  std::vector<TraceRecord> queued, issued;
  std::vector<bool> merged_away;  // per queued record: it joined an earlier one
  // Queued requests by (device, first byte) and (device, end byte), for the merges.
  using Key = std::pair<std::uint32_t, std::uint64_t>;
  std::map<Key, std::size_t> by_start, by_end;
  std::uint64_t skipped_q = 0, skipped_d = 0, merges = 0, merges_applied = 0;
  Completions completions;  // events=D: the C events paired with the D events
  // Applies the merge of bio [start, start + len) of `dev`, queued just before, into
  // the request it extends (back: it ends at `start`; front: it begins at the bio's end).
  auto merge = [&](std::uint32_t dev, std::uint64_t start, std::uint32_t len, bool back) {
    auto bio = by_start.find({dev, start});
    if (bio == by_start.end()) return;
    const std::size_t j = bio->second;
    if (merged_away[j] || queued[j].length != len) return;
    const auto into = back ? by_end.find({dev, start}) : by_start.find({dev, start + len});
    if (into == (back ? by_end.end() : by_start.end())) return;
    const std::size_t i = into->second;
    if (i == j || merged_away[i] || queued[i].length > 0xffffffffull - len) return;
    merged_away[j] = true;
    if (auto e = by_end.find({dev, start + len}); e != by_end.end() && e->second == j)
      by_end.erase(e);
    by_start.erase(bio);
    TraceRecord& r = queued[i];
    r.length += len;
    if (back) {
      by_end.erase(into);
      by_end[{dev, r.offset + r.length}] = i;
    } else {
      by_start.erase(into);
      r.offset = start;
      by_start[{dev, start}] = i;
    }
    ++merges_applied;
  };
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_ws(line);
    if (f.empty() || !is_dev_field(f[0])) return;  // summary and other non-event lines
    if (f.size() < 6) fail(w, "line", line, "'dev cpu seq time pid action ...'");
    const std::string_view action = f[5];
    const bool is_merge = action == "M" || action == "F";
    const bool is_done = action == "C" && o.events == BlkEvents::Issued;
    if (action != "Q" && action != "D" && !is_merge && !is_done) return;
    if (f.size() < 7) fail(w, "rwbs", "", "an RWBS field after the action");
    const auto comma = f[0].find(',');
    const auto major = to_uint<std::uint32_t>(w, "dev", f[0].substr(0, comma));
    const auto minor = to_uint<std::uint32_t>(w, "dev", f[0].substr(comma + 1));
    to_uint<std::uint32_t>(w, "cpu", f[1]);
    to_uint<std::uint64_t>(w, "seq", f[2]);
    const double secs = to_double(w, "time", f[3]);
    check_arrival(w, "time", f[3], secs * 1000.0);
    to_uint<std::uint64_t>(w, "pid", f[4]);
    const Rwbs rwbs = parse_rwbs(w, f[6]);
    const std::optional<Op> op = rwbs.op;
    auto& sink = action == "D" ? issued : queued;
    auto& skipped = action == "D" ? skipped_d : skipped_q;
    // No extent (a flush, or a line whose tail is only "[comm]"): not replayed.
    if (f.size() < 8 || f[7].front() == '[' || !op) {
      if (!is_merge && !is_done) ++skipped;
      return;
    }
    if (f.size() < 10 || f[8] != "+") fail(w, "sector", f[7], "'sector + nsectors'");
    TraceRecord r;
    r.op = *op;
    r.origin = rwbs.meta ? Origin::Meta
               : rwbs.readahead ? Origin::Readahead
               : (rwbs.sync || rwbs.fua || r.op == Op::Read) ? Origin::Sync
                                                             : Origin::Async;
    r.device = (major << 20) | minor;
    r.time_ms = secs * 1000.0;
    r.offset = byte_offset(w, "sector", f[7], to_uint<std::uint64_t>(w, "sector", f[7]), sector);
    const auto n = to_uint<std::uint64_t>(w, "nsectors", f[9]);
    if (n == 0) {
      if (!is_merge && !is_done) ++skipped;
      return;
    }
    r.length = byte_length(w, "nsectors", f[9], n, sector);
    check_end(w, "sector", f[7], r.offset, r.length);
    if (is_done) {  // its tail is the error code: [0] when it succeeded
      completions.completed(r, f.size() < 11 || f[10] == "[0]", issued);
      return;
    }
    if (action == "D") completions.issued(r, issued.size());
    if (is_merge) {
      ++merges;
      if (o.events == BlkEvents::Queued) merge(r.device, r.offset, r.length, action == "M");
      return;
    }
    if (action == "Q") {
      by_start[{r.device, r.offset}] = queued.size();
      by_end[{r.device, r.offset + r.length}] = queued.size();
      merged_away.push_back(false);
    }
    sink.push_back(r);
  });
  const std::size_t q_events = queued.size();
  if (o.events == BlkEvents::Issued) {
    if (issued.empty() && q_events > 0)
      throw TraceError(fmt::format(
          "{}: holds {} Q (queued) events but no D (issued) events, the default; replay the "
          "queued stream (merges applied) with events=Q", name, q_events));
    t.records = std::move(issued);
    t.skipped = skipped_d;
    t.notes.push_back(fmt::format(
        "blkparse: replaying the {} D (issued) events, requests as they reached the device; "
        "the trace also has {} Q (queued) events and {} merges (events=Q replays the queued "
        "stream with the merges applied)", t.records.size(), q_events, merges));
    if (completions.any()) t.notes.push_back(completions.note(t.records.size()));
    return;
  }
  if (queued.empty() && !issued.empty())
    throw TraceError(fmt::format(
        "{}: holds {} D (issued) events but no Q (queued) events; replay them with events=D",
        name, issued.size()));
  for (std::size_t i = 0; i < queued.size(); ++i)
    if (!merged_away[i]) t.records.push_back(queued[i]);
  t.skipped = skipped_q;
  t.notes.push_back(fmt::format(
      "blkparse: replaying the {} Q (queued) events as {} requests, {} of the trace's {} merges "
      "applied (events=D replays the {} D events, what reached the device)", q_events,
      t.records.size(), merges_applied, merges, issued.size()));
}

// ---- our CSV: time_ms,op,offset,length[,device]
void read_csv(std::istream& in, const std::string& name, double ms_per_unit, TraceData& t) {
  bool first = true;
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    const bool header_allowed = first;
    first = false;
    if (trim(line).front() == '#') return;
    auto f = csv_fields(line);
    if (header_allowed && !f.empty() && f[0] == "time_ms") return;
    if (f.size() != 4 && f.size() != 5)
      fail(w, "line", line, "4 or 5 fields 'time_ms,op,offset,length[,device]'");
    TraceRecord r;
    r.time_ms = to_double(w, "time_ms", f[0]) * ms_per_unit;
    check_arrival(w, "time_ms", f[0], r.time_ms);
    std::string op(f[1]);
    for (auto& c : op) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (op == "r" || op == "read")
      r.op = Op::Read;
    else if (op == "w" || op == "write")
      r.op = Op::Write;
    else if (op == "t" || op == "trim")
      r.op = Op::Trim;
    else if (op == "f" || op == "flush")
      r.op = Op::Flush;
    else
      fail(w, "op", f[1], "R, W, T or F (or read, write, trim, flush)");
    r.offset = to_uint<std::uint64_t>(w, "offset", f[2]);
    const auto len = to_uint<std::uint64_t>(w, "length", f[3]);
    if (r.op == Op::Flush) {
      if (len > 0xffffffffull) fail(w, "length", f[3], "a length below 4 GiB");
      r.length = static_cast<std::uint32_t>(len);
    } else {
      r.length = byte_length(w, "length", f[3], len, 1);
    }
    check_end(w, "offset", f[2], r.offset, r.length);
    if (f.size() == 5) r.device = to_uint<std::uint32_t>(w, "device", f[4]);
    if (r.op == Op::Flush && r.length == 0) {
      ++t.skipped;
      return;
    }
    t.records.push_back(r);
  });
}

// ---- HP SRT 1.3: text header ended by 0x0C, then big-endian uint32 records.
constexpr std::uint64_t kMaxSectorBytes = 1 << 20;

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

void read_srt(std::istream& in, const std::string& name, std::uint32_t sector_override,
              TraceData& t) {
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string magic = "$$TR_IOREC";
  if (bytes.compare(0, magic.size(), magic) != 0)
    throw TraceError(fmt::format("{}: not an HP SRT trace: the header does not start with '{}'",
                                 name, magic));
  const auto ff = bytes.find('\x0c');
  if (ff == std::string::npos)
    throw TraceError(fmt::format("{}: SRT header has no end (no form feed byte 0x0C)", name));
  const std::string header = bytes.substr(0, ff);
  std::uint32_t sector = sector_override;
  if (sector == 0) {
    // The first disk's `sectorsize = N;` (256 B for hplajw); 512 if the header has none.
    sector = 512;
    const auto k = header.find("sectorsize");
    if (k != std::string::npos) {
      std::size_t i = k + 10;
      while (i < header.size() && (header[i] == ' ' || header[i] == '=' || header[i] == '\t')) ++i;
      std::size_t j = i;
      while (j < header.size() && std::isdigit(static_cast<unsigned char>(header[j]))) ++j;
      if (j == i)
        throw TraceError(fmt::format("{}: SRT header: field 'sectorsize' has no number", name));
      const std::string_view digits(header.data() + i, j - i);
      std::uint64_t v = 0;
      const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc() || v == 0 || v > kMaxSectorBytes)
        throw TraceError(fmt::format(
            "{}: SRT header: field 'sectorsize' = '{}': expected a sector size in bytes from 1 to "
            "{} (or give the trace's sector size with sector=B)", name, digits, kMaxSectorBytes));
      sector = static_cast<std::uint32_t>(v);
    }
  }
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t pos = ff + 1;
  std::size_t index = 0;
  std::uint64_t inverted = 0;  // records whose stop precedes their start
  auto bad = [&](std::string_view field, std::uint64_t value, std::string_view expected) {
    throw TraceError(fmt::format("{}: record {} at byte {}: field '{}' = {}: expected {}", name,
                                 index, pos, field, value, expected));
  };
  while (pos < bytes.size()) {
    ++index;
    if (bytes.size() - pos < 16) bad("size", bytes.size() - pos, "a 16-byte record header (file truncated)");
    const std::uint32_t size = be32(data + pos);
    const std::uint32_t id = be32(data + pos + 4);
    const std::uint32_t sec = be32(data + pos + 8);
    const std::uint32_t usec = be32(data + pos + 12);
    if (size < 16) bad("size", size, "at least 16 bytes");
    if (size > bytes.size() - pos) bad("size", size, fmt::format("at most the {} bytes left (file truncated)", bytes.size() - pos));
    const std::uint32_t version = id >> 16;
    const std::uint32_t type = id & 0xffff;
    if (version < 1 || version > 4) bad("id", id, "a record version 1-4 in the high 16 bits");
    if (usec >= 1000000) bad("usec", usec, "microseconds below 1000000");
    if (type == 1 || type == 4) {  // SHORTIO, SUSPECTIO
      if (size < 52) bad("size", size, "at least 52 bytes for an I/O record");
      const unsigned char* b = data + pos + 16;
      const std::uint32_t start_us = be32(b);
      const std::uint32_t stop_us = be32(b + 4);
      const std::uint32_t nbytes = be32(b + 8);
      const std::uint32_t sectno = be32(b + 12);
      const std::uint32_t devno = be32(b + 16);
      const std::uint32_t ioflags = be32(b + 28);
      if (nbytes % sector != 0)
        bad("bytes", nbytes, fmt::format("a whole number of {}-byte sectors (the header's "
                                          "sectorsize, or sector=B)", sector));
      TraceRecord r;
      r.time_ms = static_cast<double>(sec) * 1000.0 + static_cast<double>(usec) / 1000.0;
      r.op = (ioflags & 1u) ? Op::Read : Op::Write;
      // GP: a synchronous request blocks its process; HP-UX's asynchronous reads are
      // read-aheads, its asynchronous writes delayed writes.
      r.origin = !(ioflags & 0x100u) ? Origin::Sync
                 : r.op == Op::Read  ? Origin::Readahead
                                     : Origin::Async;
      r.offset = std::uint64_t{sectno} * sector;
      r.length = nbytes;
      r.device = (devno >> 8) & 0xffff;
      // Sent to the disk `start` us after the enqueue, completed `stop` us after it; a
      // record that has it complete before it was sent carries no measured times.
      if (start_us <= stop_us) {
        r.issued_ms = start_us / 1000.0;
        r.done_ms = stop_us / 1000.0;
      } else {
        ++inverted;
      }
      if (nbytes == 0)
        ++t.skipped;
      else
        t.records.push_back(r);
    } else {
      ++t.skipped;  // LONGIO, TEXTIO, file-system events: skipped by size
    }
    pos += size;
  }
  if (inverted > 0)
    t.notes.push_back(fmt::format(
        "srt: {} I/O records say they completed before they were sent to the disk (stop < "
        "start); they carry no measured times", inverted));
}

// Block traces run at about 1 to 100,000 requests per second. A mean rate far outside
// that usually means the times were read in the wrong unit (nanoseconds as ms gives a
// millionth of the rate): say what the numbers look like, and how each unit reads them.
void check_plausible(TraceData& t) {
  if (t.records.size() < 10) return;
  const double rate = t.rate_per_s();
  const Millis span = t.records.back().time_ms - t.records.front().time_ms;
  if (rate <= 0 || (rate >= 0.1 && rate <= 1e6)) return;
  std::string how;
  if (t.format == "ascii" || t.format == "csv") {
    const std::vector<std::pair<const char*, double>> units = {
        {"s", 1000.0}, {"ms", 1.0}, {"us", 1e-3}, {"ns", 1e-6}};
    std::vector<std::string> alt;
    for (const auto& [unit, factor] : units)
      alt.push_back(fmt::format("time={}: {:.3g} requests/s over {:.3g} s", unit, rate / factor,
                                span * factor / 1000.0));
    how = fmt::format(" If the times are not in ms, say their unit ({}; read now as time=ms)",
                      fmt::join(alt, ", "));
  } else {
    how = " Check that the file is in this format (its time unit is fixed)";
  }
  t.notes.push_back(fmt::format(
      "{}: {} requests over {:.3g} s ({:.3g} days) is {:.3g} requests/s, {} for a block trace.{}",
      t.path, t.records.size(), span / 1000.0, span / 86400e3, rate,
      rate < 0.1 ? "very sparse" : "very dense", how));
}

}  // namespace

namespace {

// The first 20 non-blank lines of `path`.
std::string head_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head, line;
  for (int n = 0; in && n < 20 && std::getline(in, line);) {
    if (trim(line).empty()) continue;
    head += line + "\n";
    ++n;
  }
  return head;
}

// Whether `head` reads as at least one request in `format`.
bool head_reads_as(const std::string& head, const std::string& name, std::string_view format) {
  std::vector<TraceOptions> tries(1);
  if (format == "blkparse") tries.push_back(TraceOptions{.events = BlkEvents::Queued});
  for (const auto& o : tries) {
    try {
      std::istringstream is(head);
      if (!read_trace(format, is, name, o).records.empty()) return true;
    } catch (const TraceError&) {
    }
  }
  return false;
}

}  // namespace

std::string guess_trace_format(const std::string& path, std::string_view except) {
  const std::string head = head_of(path);
  if (except != "srt" && head.rfind("$$TR_IOREC", 0) == 0) return "srt";
  for (const auto& f : trace_formats())
    if (f != except && head_reads_as(head, path, f)) return f;
  return "";
}

TraceData read_trace(std::string_view format, std::istream& in, const std::string& name,
                     const TraceOptions& o) {
  const std::uint32_t sector_bytes = o.sector_bytes;
  TraceData t;
  t.format = std::string(format);
  t.path = name;
  const std::uint32_t sector = sector_bytes ? sector_bytes : 512;
  if (format == "ascii")
    read_ascii(in, name, sector, o.ms_per_time_unit, t);
  else if (format == "validate")
    read_validate(in, name, sector, t);
  else if (format == "msr")
    read_msr(in, name, t);
  else if (format == "spc")
    read_spc(in, name, sector, t);
  else if (format == "blkparse")
    read_blkparse(in, name, o, t);
  else if (format == "srt")
    read_srt(in, name, sector_bytes, t);
  else if (format == "csv")
    read_csv(in, name, o.ms_per_time_unit, t);
  else
    throw TraceError(fmt::format("unknown trace format '{}'; valid: {}", format,
                                 fmt::join(trace_formats(), ", ")));
  if (in.bad()) throw TraceError(fmt::format("{}: read error", name));
  if (format != "validate") {
    // Arrival order; real traces (per-CPU merges, SYSTOR-like exports) are not always sorted.
    std::stable_sort(t.records.begin(), t.records.end(),
                     [](const TraceRecord& a, const TraceRecord& b) { return a.time_ms < b.time_ms; });
    if (!t.records.empty()) {
      const Millis t0 = t.records.front().time_ms;
      for (auto& r : t.records) r.time_ms -= t0;
    }
    check_plausible(t);
  }
  return t;
}

TraceData read_trace(std::string_view format, const std::string& path, const TraceOptions& o) {
  const auto& f = trace_formats();
  if (std::find(f.begin(), f.end(), format) == f.end())
    throw TraceError(fmt::format("unknown trace format '{}'; valid: {}", format, fmt::join(f, ", ")));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(fmt::format("{}: cannot open trace file", path));
  try {
    return read_trace(format, in, path, o);
  } catch (const TraceError& e) {
    // Read with the wrong format? Say what the file looks like.
    if (head_reads_as(head_of(path), path, format)) throw;  // a bad line further on
    const std::string other = guess_trace_format(path, format);
    if (other.empty()) throw;
    throw TraceError(fmt::format("{}; the file looks like a '{}' trace: try trace:{}:{}", e.what(),
                                 other, other, path));
  }
}

}  // namespace disksched
